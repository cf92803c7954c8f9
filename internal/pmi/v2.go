package pmi

import (
	"fmt"
	"strconv"
	"strings"
)

// PMI-2's limits (PMI2_MAX_KEYLEN, PMI2_MAX_VALLEN), which Slurm and Hydra
// both use. Both are buffer sizes that include C's terminating nul: Hydra
// cuts a 1024-character value to 1023.
const (
	pmi2KeyMax = 64 - 1
	pmi2ValMax = 1024 - 1
)

// v2 speaks PMI-2 over c.
type v2 struct {
	c     *conn
	jobID string
}

// handshakeV2 runs the PMI-2 start-up: a PMI-1 style init asking for
// version 2, fullinit, and job-getid for the KVS name.
func handshakeV2(c *conn, e launchEnv) (*v2, ident, error) {
	p := &v2{c: c}
	var id ident
	if err := c.init("2", "0"); err != nil {
		return nil, id, err
	}

	// Slurm requires pmijobid, pmirank and threaded; Hydra needs none of
	// them. pmirank is PMI_ID when connecting to a port (Hydra), else
	// PMI_RANK.
	var pairs []string
	if e.jobID != "" {
		pairs = append(pairs, "pmijobid", e.jobID)
	}
	self := e.rank
	if e.id >= 0 {
		self = e.id
	}
	if self >= 0 {
		pairs = append(pairs, "pmirank", strconv.Itoa(self))
	}
	pairs = append(pairs, "threaded", "FALSE")
	rep, err := p.call("fullinit", "fullinit-response", pairs...)
	if err != nil {
		return nil, id, err
	}
	for _, f := range []struct {
		key string
		dst *int
		min int
	}{{"rank", &id.rank, 0}, {"size", &id.size, 1}, {"appnum", &id.appNum, -1}} {
		n, err := strconv.Atoi(rep.kv[f.key])
		if err != nil || n < f.min {
			return nil, id, fmt.Errorf("fullinit: %s=%q in %s: expected a number of %d or more", f.key, rep.kv[f.key], quoteRaw(rep.raw), f.min)
		}
		*f.dst = n
	}
	if id.rank >= id.size {
		return nil, id, fmt.Errorf("fullinit: the server sent rank=%d with size=%d", id.rank, id.size)
	}
	if e.rank >= 0 && e.rank != id.rank || e.size >= 0 && e.size != id.size {
		return nil, id, fmt.Errorf("fullinit: the server sent rank=%d size=%d, the environment PMI_RANK=%d PMI_SIZE=%d", id.rank, id.size, e.rank, e.size)
	}

	if rep, err = p.call("job-getid", "job-getid-response"); err != nil {
		return nil, id, err
	}
	if p.jobID = rep.kv["jobid"]; p.jobID == "" {
		return nil, id, fmt.Errorf("job-getid: no jobid in %s", quoteRaw(rep.raw))
	}
	id.job = p.jobID
	return p, id, nil
}

func (p *v2) call(cmd, want string, pairs ...string) (reply, error) {
	return p.callAs(cmd, cmd, want, pairs...)
}

func (p *v2) callAs(label, cmd, want string, pairs ...string) (reply, error) {
	return p.c.exchange(true, label, cmd, want, pairs...)
}

func (p *v2) limits() (keyMax, valMax int) { return pmi2KeyMax, pmi2ValMax }

func (p *v2) put(key, val string) error {
	_, err := p.callAs("kvs-put "+key, "kvs-put", "kvs-put-response", "key", key, "value", val)
	return err
}

// fence is kvs-fence: it commits this rank's puts and waits for all.
func (p *v2) fence() error {
	_, err := p.call("kvs-fence", "kvs-fence-response")
	return err
}

func (p *v2) get(key string) (string, error) {
	rep, err := p.callAs("kvs-get "+key, "kvs-get", "kvs-get-response", "jobid", p.jobID, "srcid", "-1", "key", key)
	if err != nil {
		return "", err
	}
	found, err := foundFlag(rep)
	if err != nil {
		return "", fmt.Errorf("kvs-get %s: %w", key, err)
	}
	if !found {
		return "", fmt.Errorf("kvs-get %s: %w", key, ErrNotFound)
	}
	v, ok := rep.kv["value"]
	if !ok {
		return "", fmt.Errorf("kvs-get %s: found=TRUE but no value in %s", key, quoteRaw(rep.raw))
	}
	return v, nil
}

func (p *v2) jobAttr(key string) (string, bool, error) {
	rep, err := p.callAs("info-getjobattr "+key, "info-getjobattr", "info-getjobattr-response", "key", key)
	if err != nil {
		return "", false, err
	}
	found, err := foundFlag(rep)
	if err != nil || !found {
		return "", false, err
	}
	v, ok := rep.kv["value"]
	if !ok {
		return "", false, fmt.Errorf("info-getjobattr %s: found=TRUE but no value in %s", key, quoteRaw(rep.raw))
	}
	return v, true, nil
}

func foundFlag(rep reply) (bool, error) {
	switch rep.kv["found"] {
	case "TRUE":
		return true, nil
	case "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("found=%q in %s: expected TRUE or FALSE", rep.kv["found"], quoteRaw(rep.raw))
}

// abort asks the launcher to end the whole job. There is no reply; Slurm
// does not unescape ";;", so the message loses its semicolons.
func (p *v2) abort(_ int, msg string) error {
	msg = strings.NewReplacer(";", ",", "\n", " ", "\r", " ").Replace(msg)
	if len(msg) > pmi2ValMax {
		msg = msg[:pmi2ValMax]
	}
	if err := p.c.writeMessage("abort", "isworld", "TRUE", "msg", msg); err != nil {
		return fmt.Errorf("abort: %w", err)
	}
	return nil
}

func (p *v2) finalize() error {
	_, err := p.call("finalize", "finalize-response")
	return err
}
