package pmi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var versions = []Version{V1, V2}

// binary is a value that holds every byte, PMI's separators included.
func binary(seed, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*13 + seed)
	}
	return b
}

// TestJob runs three ranks against one fake server in each protocol:
// handshake, a put each, a fence, every rank's value read back.
func TestJob(t *testing.T) {
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			const size = 3
			j := newFakeJob(size)
			j.appNum = 2
			var wg sync.WaitGroup
			errs := make([]error, size)
			for r := 0; r < size; r++ {
				env := j.fdEnv(t, r, nil) // here: it may fail the test
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[r] = runRank(j, r, v, env)
				}()
			}
			wg.Wait()
			for r, err := range errs {
				if err != nil {
					t.Errorf("rank %d: %v", r, err)
				}
			}
		})
	}
}

// runRank is rank r of TestJob, its client opened from env; it reports
// through its error, as it runs on a goroutine of its own.
func runRank(j *fakeJob, r int, v Version, env func(string) string) error {
	c, err := Open(env, v)
	if err != nil {
		return err
	}
	if c.Rank() != r || c.Size() != j.size || c.AppNum() != j.appNum || c.JobID() != j.job || c.Version() != v {
		return fmt.Errorf("identity rank %d size %d appnum %d job %q version %v", c.Rank(), c.Size(), c.AppNum(), c.JobID(), c.Version())
	}
	node, err := c.Node()
	if err != nil {
		return err
	}
	if node.ID != 0 || node.LocalRank != r || len(node.Ranks) != j.size {
		return fmt.Errorf("node %+v", node)
	}
	if err := c.Put("addr-"+strconv.Itoa(r), binary(r, 100+r)); err != nil {
		return err
	}
	if err := c.Fence(); err != nil {
		return err
	}
	for q := 0; q < j.size; q++ {
		got, err := c.Get("addr-" + strconv.Itoa(q))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, binary(q, 100+q)) {
			return fmt.Errorf("rank %d's value came back as %x", q, got)
		}
	}
	return c.Finalize()
}

// TestPort connects through PMI_PORT and PMI_ID: PMI-1 learns its rank
// and size from the initack exchange, PMI-2 from fullinit.
func TestPort(t *testing.T) {
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			j := newFakeJob(4)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				sc, err := ln.Accept()
				if err == nil {
					j.serve(sc, -1)
				}
			}()
			c, err := Open(envOf(map[string]string{"PMI_PORT": ln.Addr().String(), "PMI_ID": "2"}), v)
			if err != nil {
				t.Fatal(err)
			}
			if c.Rank() != 2 || c.Size() != 4 {
				t.Errorf("rank %d size %d, want 2 and 4", c.Rank(), c.Size())
			}
			if err := c.Finalize(); err != nil {
				t.Fatal(err)
			}
			first := j.requests[0]
			if v == V1 && first != "cmd=initack pmiid=2\n" {
				t.Errorf("first request %q, want the initack greeting", first)
			}
			if v == V2 && first != "cmd=init pmi_version=2 pmi_subversion=0\n" {
				t.Errorf("first request %q, want init asking for version 2", first)
			}
		})
	}
}

// TestAutoPicksPMI2ForSlurm: PMI_JOBID is Slurm's pmi2 plugin, which
// needs pmijobid in fullinit.
func TestAutoPicksPMI2ForSlurm(t *testing.T) {
	j := newFakeJob(1)
	c, err := j.openFD(t, 0, Auto, map[string]string{"PMI_JOBID": "4242.0"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != V2 {
		t.Errorf("version %v, want PMI-2", c.Version())
	}
	c.Finalize()
	if want := "cmd=fullinit;pmijobid=4242.0;pmirank=0;threaded=FALSE;"; !strings.HasSuffix(j.requests[1], want) {
		t.Errorf("fullinit request %q, want it to end in %q", j.requests[1], want)
	}

	j = newFakeJob(1)
	c, err = j.openFD(t, 0, Auto, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != V1 {
		t.Errorf("without PMI_JOBID version %v, want PMI-1", c.Version())
	}
	c.Finalize()
}

// TestLongValues splits values over several keys and joins them again,
// within limits the server enforces: a value as long as vallen_max is
// refused, as C servers that count the terminating nul do.
func TestLongValues(t *testing.T) {
	for _, v := range versions {
		for _, n := range []int{0, 1, 700, 767, 768, 769, 5000} {
			t.Run(fmt.Sprintf("%v/%d", v, n), func(t *testing.T) {
				j := newFakeJob(1)
				c, err := j.openFD(t, 0, v, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Finalize()
				want := binary(n, n)
				if err := c.Put("big", want); err != nil {
					t.Fatal(err)
				}
				_, valMax := c.proto.limits()
				pieces := (len(enc.EncodeToString(want)) + 2 + valMax - 1) / valMax
				if j.puts < pieces || j.puts > pieces+1 {
					t.Errorf("%d puts for %d encoded bytes with values up to %d", j.puts, len(enc.EncodeToString(want)), valMax)
				}
				if err := c.Fence(); err != nil {
					t.Fatal(err)
				}
				got, err := c.Get("big")
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("got %d bytes back, want %d", len(got), len(want))
				}
			})
		}
	}
}

// TestSmallVallenMax follows a PMI-1 server's get_maxes down to tiny
// values.
func TestSmallVallenMax(t *testing.T) {
	j := newFakeJob(1)
	j.valMax = 16
	c, err := j.openFD(t, 0, V1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Finalize()
	want := binary(1, 300)
	if err := c.Put("k", want); err != nil {
		t.Fatal(err)
	}
	if j.puts < 300*4/3/15 {
		t.Errorf("%d puts, want the value split in pieces of at most 15 characters", j.puts)
	}
	got, err := c.Get("k")
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("Get = %x, %v", got, err)
	}
}

func TestKeys(t *testing.T) {
	j := newFakeJob(1)
	c, err := j.openFD(t, 0, V1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Finalize()
	for _, key := range []string{"", "a b", "a=b", "a.1", "a;b", "é", strings.Repeat("k", 59)} {
		err := c.Put(key, []byte("x"))
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(key)) || !strings.Contains(err.Error(), "allowed") {
			t.Errorf("Put(%q) = %v, want an error naming the key and what is allowed", key, err)
		}
		if _, err := c.Get(key); err == nil {
			t.Errorf("Get(%q) succeeded", key)
		}
	}
	if err := c.Put(strings.Repeat("k", 58), []byte("x")); err != nil {
		t.Errorf("58-character key: %v", err)
	}
}

// TestMissingKey: a missing key wraps ErrNotFound and leaves the client
// usable.
func TestMissingKey(t *testing.T) {
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			j := newFakeJob(1)
			c, err := j.openFD(t, 0, v, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Finalize()
			if _, err := c.Get("nobody"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nobody") {
				t.Errorf("Get(nobody) = %v, want ErrNotFound naming the key", err)
			}
			if err := c.Put("k", []byte("v")); err != nil {
				t.Errorf("Put after a missing key: %v", err)
			}
		})
	}
}

// TestForeignValue: a value Put did not write is refused with the value.
func TestForeignValue(t *testing.T) {
	j := newFakeJob(1)
	j.kvs["raw"] = "hello"
	c, err := j.openFD(t, 0, V1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Finalize()
	if _, err := c.Get("raw"); err == nil || !strings.Contains(err.Error(), `"hello"`) {
		t.Errorf("Get(raw) = %v, want an error quoting the value", err)
	}
	j.kvs["bad"] = "1,@@@"
	if _, err := c.Get("bad"); err == nil || !strings.Contains(err.Error(), "not base64url") {
		t.Errorf("Get(bad) = %v, want an error about the encoding", err)
	}
	j.kvs["short"] = "3,AAAA"
	j.kvs["short.1"] = "AAAA"
	if _, err := c.Get("short"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "piece 2 of 3 of short") {
		t.Errorf("Get(short) = %v, want the missing piece named", err)
	}
	if err := c.Put("after", []byte("v")); err != nil {
		t.Errorf("Put after foreign values: %v", err)
	}
}

// TestServerErrors: an rc != 0 names the command, rc and message, and the
// client stays usable.
func TestServerErrors(t *testing.T) {
	cases := []struct {
		v           Version
		cmd, answer string
		want        []string
	}{
		{V1, "put", "cmd=put_result rc=-1 msg=kvs_full\n", []string{"put k:", "rc=-1", `msg="kvs_full"`}},
		{V1, "barrier_in", "cmd=barrier_out rc=3 msg=tree_failed\n", []string{"barrier_in:", "rc=3", "tree_failed"}},
		{V2, "kvs-put", "000045cmd=kvs-put-response;rc=7;errmsg=no room;", []string{"kvs-put k:", "rc=7", `msg="no room"`}},
		{V2, "kvs-fence", "000047cmd=kvs-fence-response;rc=1;errmsg=tree;;down;", []string{"kvs-fence:", "rc=1", `"tree;down"`}},
	}
	for _, tc := range cases {
		t.Run(tc.v.String()+"/"+tc.cmd, func(t *testing.T) {
			j := newFakeJob(1)
			once := true
			j.hook = func(cmd string, _ map[string]string) (string, bool, bool) {
				if cmd != tc.cmd || !once {
					return "", false, false
				}
				once = false
				return fixLen(tc.answer), false, true
			}
			c, err := j.openFD(t, 0, tc.v, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Finalize()
			err = c.Put("k", []byte("v"))
			if err == nil {
				err = c.Fence()
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v, want it to contain %q", err, w)
				}
			}
			if err := c.Put("k2", []byte("v")); err != nil {
				t.Errorf("Put after a server error: %v", err)
			}
		})
	}
}

// fixLen rewrites a PMI-2 message's "0000NN" placeholder length.
func fixLen(s string) string {
	if !strings.HasPrefix(s, "0000") {
		return s
	}
	body := s[6:]
	return fmt.Sprintf("%-6d%s", len(body), body)
}

// TestInitRefused: a server refusing init or fullinit fails Open with
// what it answered.
func TestInitRefused(t *testing.T) {
	j := newFakeJob(1)
	j.hook = func(cmd string, _ map[string]string) (string, bool, bool) {
		if cmd == "init" {
			return "cmd=response_to_init rc=-1 pmi_version=1 pmi_subversion=1\n", true, true
		}
		return "", false, false
	}
	_, err := j.openFD(t, 0, V2, nil)
	if err == nil || !strings.Contains(err.Error(), "init") || !strings.Contains(err.Error(), "rc=-1") {
		t.Errorf("Open = %v, want the refused init", err)
	}

	j = newFakeJob(1)
	j.hook = func(cmd string, _ map[string]string) (string, bool, bool) {
		if cmd == "fullinit" {
			return fixLen("0000xxcmd=fullinit-response;rc=3;errmsg=bad rank;"), true, true
		}
		return "", false, false
	}
	_, err = j.openFD(t, 0, V2, nil)
	if err == nil || !strings.Contains(err.Error(), "fullinit") || !strings.Contains(err.Error(), `msg="bad rank"`) {
		t.Errorf("Open = %v, want the refused fullinit", err)
	}
}

// TestBrokenReplies: a server that closes mid-reply or sends junk gives
// an error naming the request, never a hang or a panic, and later
// requests fail at once.
func TestBrokenReplies(t *testing.T) {
	cases := []struct {
		name   string
		v      Version
		cmd    string
		answer string
		close  bool
		want   string
	}{
		{"v1 closes mid-line", V1, "barrier_in", "cmd=barrier_o", true, "unexpected EOF"},
		{"v1 closes before replying", V1, "barrier_in", "", true, "unexpected EOF"},
		{"v1 no cmd", V1, "barrier_in", "hello there\n", false, "not key=value"},
		{"v1 other first key", V1, "barrier_in", "rc=0 cmd=barrier_out\n", false, "does not start with cmd="},
		{"v1 wrong reply", V1, "barrier_in", "cmd=finalize_ack\n", false, "expected cmd=barrier_out"},
		{"v1 binary", V1, "barrier_in", "\x00\xff\x01=\x02\n", false, "malformed reply"},
		{"v1 endless line", V1, "barrier_in", strings.Repeat("x", maxLine+10), true, "no newline"},
		{"v2 closes in the length", V2, "kvs-fence", "00", true, "unexpected EOF"},
		{"v2 closes in the body", V2, "kvs-fence", "40    cmd=kvs-fence", true, "unexpected EOF"},
		{"v2 length not a number", V2, "kvs-fence", "abcdefcmd=kvs-fence-response;rc=0;", false, "length field"},
		{"v2 zero length", V2, "kvs-fence", "0     ", false, "length field"},
		{"v2 huge length", V2, "kvs-fence", "999999", false, "length field"},
		{"v2 no rc", V2, "kvs-fence", "0000xxcmd=kvs-fence-response;", false, "has no rc"},
		{"v2 no cmd", V2, "kvs-fence", "0000xxrc=0;cmd=kvs-fence-response;", false, "does not start with cmd="},
		{"v2 no key", V2, "kvs-fence", "0000xxcmd=kvs-fence-response;rc;", false, "expected key=value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := newFakeJob(1)
			j.hook = func(cmd string, _ map[string]string) (string, bool, bool) {
				if cmd != tc.cmd {
					return "", false, false
				}
				return fixLen(tc.answer), tc.close, true
			}
			c, err := j.openFD(t, 0, tc.v, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Fence()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.cmd) {
				t.Errorf("Fence = %v, want an error naming %s and containing %q", err, tc.cmd, tc.want)
			}
			if tc.close && !errors.Is(err, io.ErrUnexpectedEOF) && tc.want == "unexpected EOF" {
				t.Errorf("Fence = %v, want io.ErrUnexpectedEOF", err)
			}
			err2 := c.Put("k", []byte("v"))
			if err2 == nil || !strings.Contains(err2.Error(), "failed earlier") {
				t.Errorf("Put after a broken reply = %v, want the earlier failure", err2)
			}
			c.Finalize()
		})
	}
}

// TestConcurrentUse: goroutines sharing a client never interleave their
// requests on the socket (the server would see malformed requests and
// the values would not match).
func TestConcurrentUse(t *testing.T) {
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			j := newFakeJob(1)
			c, err := j.openFD(t, 0, v, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Finalize()
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 20; i++ {
						key := fmt.Sprintf("g%d-%d", g, i)
						want := binary(g*100+i, 600+g*97)
						if err := c.Put(key, want); err != nil {
							errs <- err
							return
						}
						got, err := c.Get(key)
						if err != nil || !bytes.Equal(got, want) {
							errs <- fmt.Errorf("%s: %v", key, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestFinalizeAndAbort: what each protocol sends, and that a finished
// client refuses further requests.
func TestFinalizeAndAbort(t *testing.T) {
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			j := newFakeJob(1)
			c, err := j.openFD(t, 0, v, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Abort(7, "out of memory; giving up\n"); err != nil {
				t.Fatal(err)
			}
			last := j.lastRequest(t, "abort")
			want := map[Version]string{V1: "cmd=abort exitcode=7\n", V2: "cmd=abort;isworld=TRUE;msg=out of memory, giving up ;"}[v]
			if !strings.HasSuffix(last, want) {
				t.Errorf("abort request %q, want %q", last, want)
			}
			if err := c.Fence(); err == nil || !strings.Contains(err.Error(), "finalized") {
				t.Errorf("Fence after Abort = %v", err)
			}

			j = newFakeJob(1)
			if c, err = j.openFD(t, 0, v, nil); err != nil {
				t.Fatal(err)
			}
			if err := c.Finalize(); err != nil {
				t.Fatal(err)
			}
			if err := c.Put("k", nil); err == nil || !strings.Contains(err.Error(), "finalized") {
				t.Errorf("Put after Finalize = %v", err)
			}
		})
	}
}

// lastRequest waits for the server to have seen a request containing cmd.
func (j *fakeJob) lastRequest(t *testing.T, cmd string) string {
	t.Helper()
	for {
		j.mu.Lock()
		var last string
		if n := len(j.requests); n > 0 {
			last = j.requests[n-1]
		}
		j.mu.Unlock()
		if strings.Contains(last, "cmd="+cmd) {
			return last
		}
		j.mu.Lock()
		j.cond.Wait()
		j.mu.Unlock()
	}
}
