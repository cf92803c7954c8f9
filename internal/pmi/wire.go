package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const (
	// maxLine bounds a PMI-1 reply line and maxMessage a PMI-2 message
	// (replies hold one value of at most 1 KiB), so that a server sending
	// junk gets an error instead of a wait for bytes that never come.
	maxLine    = 64 << 10
	maxMessage = 64 << 10
	// lenPrefix is the width of PMI-2's decimal length field.
	lenPrefix = 6
)

// reply is one decoded server message.
type reply struct {
	cmd string
	kv  map[string]string
	raw string // as received, for error messages
}

// conn is the byte stream to the launcher.
type conn struct {
	rw io.ReadWriteCloser
	r  *bufio.Reader
}

func newConn(rw io.ReadWriteCloser) *conn {
	return &conn{rw: rw, r: bufio.NewReaderSize(rw, 4096)}
}

// readErr turns a failed read into a protocol error: a server that closes
// mid-reply is io.ErrUnexpectedEOF, not a clean end.
func readErr(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading the reply: %w", err)
}

// writeLine sends one PMI-1 line: "cmd=NAME k=v ...\n". pairs alternate
// keys and values, all already checked to be free of separators.
func (c *conn) writeLine(cmd string, pairs ...string) error {
	var b strings.Builder
	b.WriteString("cmd=")
	b.WriteString(cmd)
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteByte(' ')
		b.WriteString(pairs[i])
		b.WriteByte('=')
		b.WriteString(pairs[i+1])
	}
	b.WriteByte('\n')
	// One write per message: Slurm reads the init line with a single read.
	if _, err := io.WriteString(c.rw, b.String()); err != nil {
		return fmt.Errorf("sending the request: %w", err)
	}
	return nil
}

// readLine reads and decodes one PMI-1 reply line.
func (c *conn) readLine() (reply, error) {
	line, err := c.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) || (err == nil && len(line) > maxLine) {
		return reply{}, fmt.Errorf("reading the reply: no newline in the first %d bytes", len(line))
	}
	if err != nil {
		return reply{}, readErr(err)
	}
	return parseLine(strings.TrimRight(string(line), "\r\n"))
}

// parseLine decodes "cmd=NAME k=v ...": space-separated key=value words.
func parseLine(s string) (reply, error) {
	rep := reply{kv: map[string]string{}, raw: s}
	for i, word := range strings.Fields(s) {
		k, v, ok := strings.Cut(word, "=")
		if !ok || k == "" {
			return rep, fmt.Errorf("malformed reply %s: %q is not key=value", quoteRaw(s), word)
		}
		if i == 0 {
			if k != "cmd" {
				return rep, fmt.Errorf("malformed reply %s: it does not start with cmd=", quoteRaw(s))
			}
			rep.cmd = v
			continue
		}
		rep.kv[k] = v
	}
	if rep.cmd == "" {
		return rep, fmt.Errorf("malformed reply %s: no cmd=", quoteRaw(s))
	}
	return rep, nil
}

// writeMessage sends one PMI-2 message: the length, left-aligned in six
// characters, then "cmd=NAME;k=v;...;".
func (c *conn) writeMessage(cmd string, pairs ...string) error {
	var b strings.Builder
	b.WriteString("cmd=")
	b.WriteString(cmd)
	b.WriteByte(';')
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString(pairs[i])
		b.WriteByte('=')
		b.WriteString(pairs[i+1])
		b.WriteByte(';')
	}
	body := b.String()
	if len(body) > maxMessage {
		return fmt.Errorf("request of %d bytes exceeds %d", len(body), maxMessage)
	}
	msg := fmt.Sprintf("%-*d%s", lenPrefix, len(body), body)
	if _, err := io.WriteString(c.rw, msg); err != nil {
		return fmt.Errorf("sending the request: %w", err)
	}
	return nil
}

// readMessage reads and decodes one PMI-2 message.
func (c *conn) readMessage() (reply, error) {
	var head [lenPrefix]byte
	if _, err := io.ReadFull(c.r, head[:]); err != nil {
		return reply{}, readErr(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(head[:])))
	if err != nil || n <= 0 || n > maxMessage {
		return reply{}, fmt.Errorf("malformed reply: length field %q is not a number from 1 to %d", head[:], maxMessage)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return reply{}, readErr(err)
	}
	return parseMessage(string(body))
}

// parseMessage decodes "cmd=NAME;k=v;...;", where ";;" inside a value
// stands for ';'.
func parseMessage(s string) (reply, error) {
	rep := reply{kv: map[string]string{}, raw: s}
	rest := s
	for first := true; rest != ""; first = false {
		k, after, ok := strings.Cut(rest, "=")
		if !ok || k == "" || strings.ContainsRune(k, ';') {
			return rep, fmt.Errorf("malformed reply %s: expected key=value; at %q", quoteRaw(s), clip(rest))
		}
		var v strings.Builder
		i := 0
		for ; i < len(after); i++ {
			if after[i] == ';' {
				if i+1 < len(after) && after[i+1] == ';' {
					v.WriteByte(';')
					i++
					continue
				}
				break
			}
			v.WriteByte(after[i])
		}
		rest = ""
		if i < len(after) {
			rest = after[i+1:]
		}
		if first {
			if k != "cmd" {
				return rep, fmt.Errorf("malformed reply %s: it does not start with cmd=", quoteRaw(s))
			}
			rep.cmd = v.String()
			continue
		}
		rep.kv[k] = v.String()
	}
	if rep.cmd == "" {
		return rep, fmt.Errorf("malformed reply %s: no cmd=", quoteRaw(s))
	}
	return rep, nil
}

func clip(s string) string {
	const n = 120
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func quoteRaw(s string) string { return strconv.Quote(clip(s)) }

// expect checks that the server answered the request with want and, when
// the reply carries rc, that rc is 0. PMI-2 replies must carry rc.
func expect(rep reply, want string, rcRequired bool) error {
	if rep.cmd != want {
		return fmt.Errorf("expected cmd=%s, the server sent %s", want, quoteRaw(rep.raw))
	}
	rc, ok := rep.kv["rc"]
	if !ok {
		if rcRequired {
			return fmt.Errorf("the server's reply %s has no rc", quoteRaw(rep.raw))
		}
		return nil
	}
	if rc == "0" {
		return nil
	}
	return &serverError{cmd: want, rc: rc, msg: serverMsg(rep)}
}

func serverMsg(rep reply) string {
	if m, ok := rep.kv["errmsg"]; ok {
		return m
	}
	return rep.kv["msg"]
}

// serverError is a request the launcher answered with a non-zero rc.
type serverError struct {
	cmd string // the reply's command
	rc  string // its rc, as sent
	msg string // its msg (PMI-1) or errmsg (PMI-2), if any
}

func (e *serverError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("the server answered cmd=%s rc=%s", e.cmd, e.rc)
	}
	return fmt.Sprintf("the server answered cmd=%s rc=%s msg=%q", e.cmd, e.rc, e.msg)
}

// exchange sends cmd, in PMI-2's framing or else PMI-1's, and checks that
// the reply is want; errors start with label, which names what the
// request was about.
func (c *conn) exchange(v2 bool, label, cmd, want string, pairs ...string) (reply, error) {
	write, read := c.writeLine, c.readLine
	if v2 {
		write, read = c.writeMessage, c.readMessage
	}
	if err := write(cmd, pairs...); err != nil {
		return reply{}, fmt.Errorf("%s: %w", label, err)
	}
	rep, err := read()
	if err == nil {
		err = expect(rep, want, v2)
	}
	if err != nil {
		return rep, fmt.Errorf("%s: %w", label, err)
	}
	return rep, nil
}

// init asks the server for PMI version.subversion, in PMI-1's framing,
// which both versions start with.
func (c *conn) init(version, subversion string) error {
	rep, err := c.exchange(false, "init", "init", "response_to_init", "pmi_version", version, "pmi_subversion", subversion)
	if err != nil {
		return err
	}
	if v := rep.kv["pmi_version"]; v != version {
		return fmt.Errorf("init: the server speaks pmi_version=%s, this client %s", v, version)
	}
	return nil
}
