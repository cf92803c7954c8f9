package pmi

import (
	"fmt"
	"strconv"
)

// pmi1Line is the line limit of MPICH's simple PMI servers and of Slurm's
// (PMIU_MAXLINE); a put must fit in it whatever vallen_max says.
const pmi1Line = 1024

// v1 speaks PMI-1 over c.
type v1 struct {
	c      *conn
	kvs    string
	keyMax int
	valMax int
}

// handshakeV1 runs the PMI-1 start-up: the PMI_PORT greeting when
// connecting, init, get_maxes, get_appnum and get_my_kvsname.
func handshakeV1(c *conn, e launchEnv) (*v1, ident, error) {
	p := &v1{c: c}
	id := ident{rank: e.rank, size: e.size}
	if e.fd < 0 {
		var err error
		if id, err = p.greet(e.id); err != nil {
			return nil, id, err
		}
	}
	if err := c.init("1", "1"); err != nil {
		return nil, id, err
	}

	rep, err := p.call("get_maxes", "maxes")
	if err != nil {
		return nil, id, err
	}
	for _, f := range []struct {
		key string
		dst *int
	}{{"keylen_max", &p.keyMax}, {"vallen_max", &p.valMax}} {
		n, err := strconv.Atoi(rep.kv[f.key])
		if err != nil || n < 8 {
			return nil, id, fmt.Errorf("get_maxes: %s=%q in %s: expected a number of 8 or more", f.key, rep.kv[f.key], quoteRaw(rep.raw))
		}
		*f.dst = n
	}

	if rep, err = p.call("get_appnum", "appnum"); err != nil {
		return nil, id, err
	}
	if id.appNum, err = strconv.Atoi(rep.kv["appnum"]); err != nil {
		return nil, id, fmt.Errorf("get_appnum: appnum=%q in %s is not a number", rep.kv["appnum"], quoteRaw(rep.raw))
	}
	if rep, err = p.call("get_my_kvsname", "my_kvsname"); err != nil {
		return nil, id, err
	}
	if p.kvs = rep.kv["kvsname"]; p.kvs == "" {
		return nil, id, fmt.Errorf("get_my_kvsname: no kvsname in %s", quoteRaw(rep.raw))
	}
	id.job = p.kvs
	return p, id, nil
}

// greet is the PMI_PORT start-up: the client names itself by PMI_ID and
// the server answers with initack and then sets size, rank and debug.
func (p *v1) greet(pmiID int) (ident, error) {
	id := ident{rank: -1, size: -1}
	if err := p.c.writeLine("initack", "pmiid", strconv.Itoa(pmiID)); err != nil {
		return id, fmt.Errorf("initack: %w", err)
	}
	rep, err := p.c.readLine()
	if err == nil {
		err = expect(rep, "initack", false)
	}
	if err != nil {
		return id, fmt.Errorf("initack: %w", err)
	}
	for _, f := range []struct {
		key string
		dst *int
		min int
	}{{"size", &id.size, 1}, {"rank", &id.rank, 0}, {"debug", new(int), 0}} {
		rep, err := p.c.readLine()
		if err == nil {
			err = expect(rep, "set", false)
		}
		if err != nil {
			return id, fmt.Errorf("initack: set %s: %w", f.key, err)
		}
		n, err := strconv.Atoi(rep.kv[f.key])
		if err != nil || n < f.min {
			return id, fmt.Errorf("initack: expected cmd=set %s=N (N >= %d), the server sent %s", f.key, f.min, quoteRaw(rep.raw))
		}
		*f.dst = n
	}
	if id.rank >= id.size {
		return id, fmt.Errorf("initack: the server set rank=%d with size=%d", id.rank, id.size)
	}
	return id, nil
}

func (p *v1) call(cmd, want string, pairs ...string) (reply, error) {
	return p.callAs(cmd, cmd, want, pairs...)
}

func (p *v1) callAs(label, cmd, want string, pairs ...string) (reply, error) {
	return p.c.exchange(false, label, cmd, want, pairs...)
}

// limits leaves room for C's terminating nul, which get_maxes counts.
func (p *v1) limits() (keyMax, valMax int) {
	overhead := len("cmd=put kvsname= key= value=\n") + len(p.kvs) + p.keyMax
	return p.keyMax - 1, min(p.valMax-1, pmi1Line-overhead)
}

func (p *v1) put(key, val string) error {
	_, err := p.callAs("put "+key, "put", "put_result", "kvsname", p.kvs, "key", key, "value", val)
	return err
}

// fence is barrier_in: PMI-1 servers store a put when it arrives, so the
// barrier alone makes every rank's puts visible.
func (p *v1) fence() error {
	_, err := p.call("barrier_in", "barrier_out")
	return err
}

// get returns the value of key; a get_result with rc != 0 is how PMI-1
// says the key does not exist, and the server's msg is kept.
func (p *v1) get(key string) (string, error) {
	if err := p.c.writeLine("get", "kvsname", p.kvs, "key", key); err != nil {
		return "", fmt.Errorf("get %s: %w", key, err)
	}
	rep, err := p.c.readLine()
	if err != nil {
		return "", fmt.Errorf("get %s: %w", key, err)
	}
	if err := expect(rep, "get_result", false); err != nil {
		if se, ok := err.(*serverError); ok {
			return "", fmt.Errorf("get %s: %w (%s)", key, ErrNotFound, se)
		}
		return "", fmt.Errorf("get %s: %w", key, err)
	}
	v, ok := rep.kv["value"]
	if !ok {
		return "", fmt.Errorf("get %s: no value in %s", key, quoteRaw(rep.raw))
	}
	return v, nil
}

// jobAttr reads a launcher-set attribute: PMI-1 servers put them in the
// job's KVS (Hydra's PMI_process_mapping).
func (p *v1) jobAttr(key string) (string, bool, error) {
	v, err := p.get(key)
	if err != nil {
		if isNotFound(err) {
			return "", false, nil
		}
		return "", false, err
	}
	return v, true, nil
}

// abort asks the launcher to end the job with code. PMI-1 has no reply
// and no place for a message with spaces; the caller prints it.
func (p *v1) abort(code int, _ string) error {
	if err := p.c.writeLine("abort", "exitcode", strconv.Itoa(code)); err != nil {
		return fmt.Errorf("abort: %w", err)
	}
	return nil
}

func (p *v1) finalize() error {
	_, err := p.call("finalize", "finalize_ack")
	return err
}
