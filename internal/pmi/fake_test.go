package pmi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeJob is an in-test PMI server for one job: it speaks both protocols
// the way Hydra and Slurm answer, keeps the KVS, and holds fences until
// every rank has arrived.
type fakeJob struct {
	size    int
	mapping string // PMI_process_mapping; "" for none
	keyMax  int    // get_maxes keylen_max; longer keys are refused
	valMax  int    // get_maxes vallen_max; values of valMax or more are refused, as a C server's nul-terminated buffer would
	appNum  int
	job     string

	// hook, when set, may answer a request itself: it returns the raw
	// bytes to send and whether to close the connection after them.
	hook func(cmd string, kv map[string]string) (raw string, close bool, ok bool)

	mu       sync.Mutex
	cond     *sync.Cond
	kvs      map[string]string
	arrived  int
	gen      int
	requests []string // every request, for tests that check the wire
	puts     int
}

func newFakeJob(size int) *fakeJob {
	j := &fakeJob{size: size, keyMax: 64, valMax: 1024, job: "kvs_test_0", kvs: map[string]string{}}
	j.cond = sync.NewCond(&j.mu)
	if size > 0 {
		j.mapping = fmt.Sprintf("(vector,(0,1,%d))", size)
	}
	return j
}

// socketpair returns the client's descriptor number and the server's end.
// It fails the test, so only the test's goroutine may call it.
func socketpair(t *testing.T) (int, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[1]), "server")
	sc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close(); syscall.Close(fds[0]) })
	return fds[0], sc
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// fdEnv starts a server goroutine for rank on a socketpair and returns the
// environment of a client on it, through PMI_FD. It fails the test, so
// only the test's goroutine may call it; the client may open on any.
func (j *fakeJob) fdEnv(t *testing.T, rank int, extra map[string]string) func(string) string {
	t.Helper()
	fd, sc := socketpair(t)
	go j.serve(sc, rank)
	env := map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": strconv.Itoa(rank), "PMI_SIZE": strconv.Itoa(j.size)}
	for k, val := range extra {
		env[k] = val
	}
	return envOf(env)
}

// openFD opens a client for rank on fdEnv's socketpair.
func (j *fakeJob) openFD(t *testing.T, rank int, v Version, extra map[string]string) (*Client, error) {
	t.Helper()
	return Open(j.fdEnv(t, rank, extra), v)
}

func (j *fakeJob) record(s string) {
	j.mu.Lock()
	j.requests = append(j.requests, s)
	j.cond.Broadcast() // for lastRequest
	j.mu.Unlock()
}

// serve answers one client until it finalizes or the connection ends.
// In port mode the client's first line is initack and names the rank.
func (j *fakeJob) serve(c net.Conn, rank int) {
	defer c.Close()
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return
	}
	j.record(line)
	rep, err := parseLine(strings.TrimSpace(line))
	if err != nil {
		return
	}
	if rep.cmd == "initack" {
		rank, _ = strconv.Atoi(rep.kv["pmiid"])
		fmt.Fprintf(c, "cmd=initack\ncmd=set size=%d\ncmd=set rank=%d\ncmd=set debug=0\n", j.size, rank)
		if line, err = r.ReadString('\n'); err != nil {
			return
		}
		j.record(line)
		if rep, err = parseLine(strings.TrimSpace(line)); err != nil {
			return
		}
	}
	if rep.cmd != "init" {
		return
	}
	v := rep.kv["pmi_version"]
	if raw, closeAfter, ok := j.hooked("init", rep.kv); ok {
		io.WriteString(c, raw)
		if closeAfter {
			return
		}
	} else {
		fmt.Fprintf(c, "cmd=response_to_init pmi_version=%s pmi_subversion=%s rc=0\n", v, rep.kv["pmi_subversion"])
	}
	if v == "2" {
		j.serveV2(c, r, rank)
	} else {
		j.serveV1(c, r)
	}
}

func (j *fakeJob) hooked(cmd string, kv map[string]string) (string, bool, bool) {
	if j.hook == nil {
		return "", false, false
	}
	return j.hook(cmd, kv)
}

// fence blocks until size ranks have entered it.
func (j *fakeJob) fence() {
	j.mu.Lock()
	defer j.mu.Unlock()
	gen := j.gen
	j.arrived++
	if j.arrived == j.size {
		j.arrived = 0
		j.gen++
		j.cond.Broadcast()
		return
	}
	for gen == j.gen {
		j.cond.Wait()
	}
}

func (j *fakeJob) store(key, val string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(key) >= j.keyMax {
		return "key too long"
	}
	if len(val) >= j.valMax {
		return "value too long"
	}
	j.kvs[key] = val
	j.puts++
	return ""
}

func (j *fakeJob) lookup(key string) (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if key == "PMI_process_mapping" && j.mapping != "" {
		return j.mapping, true
	}
	v, ok := j.kvs[key]
	return v, ok
}

func (j *fakeJob) serveV1(c net.Conn, r *bufio.Reader) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		j.record(line)
		rep, err := parseLine(strings.TrimSpace(line))
		if err != nil {
			fmt.Fprintf(c, "cmd=error msg=unparsable\n")
			continue
		}
		if raw, closeAfter, ok := j.hooked(rep.cmd, rep.kv); ok {
			io.WriteString(c, raw)
			if closeAfter {
				return
			}
			continue
		}
		switch rep.cmd {
		case "get_maxes":
			fmt.Fprintf(c, "cmd=maxes kvsname_max=256 keylen_max=%d vallen_max=%d\n", j.keyMax, j.valMax)
		case "get_appnum":
			fmt.Fprintf(c, "cmd=appnum appnum=%d\n", j.appNum)
		case "get_my_kvsname":
			fmt.Fprintf(c, "cmd=my_kvsname kvsname=%s\n", j.job)
		case "put":
			if rep.kv["kvsname"] != j.job {
				fmt.Fprintf(c, "cmd=put_result rc=-1 msg=wrong_kvsname\n")
			} else if msg := j.store(rep.kv["key"], rep.kv["value"]); msg != "" {
				fmt.Fprintf(c, "cmd=put_result rc=-1 msg=%s\n", strings.ReplaceAll(msg, " ", "_"))
			} else {
				fmt.Fprintf(c, "cmd=put_result rc=0 msg=success\n")
			}
		case "barrier_in":
			j.fence()
			fmt.Fprintf(c, "cmd=barrier_out\n")
		case "get":
			if v, ok := j.lookup(rep.kv["key"]); ok {
				fmt.Fprintf(c, "cmd=get_result rc=0 msg=success value=%s\n", v)
			} else {
				fmt.Fprintf(c, "cmd=get_result rc=-1 msg=key_%s_not_found value=unknown\n", rep.kv["key"])
			}
		case "abort":
			return
		case "finalize":
			fmt.Fprintf(c, "cmd=finalize_ack\n")
			return
		default:
			fmt.Fprintf(c, "cmd=error msg=unknown_command\n")
		}
	}
}

func writeV2(c net.Conn, body string) {
	fmt.Fprintf(c, "%-6d%s", len(body), body)
}

func (j *fakeJob) serveV2(c net.Conn, r *bufio.Reader, rank int) {
	for {
		var head [6]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(head[:])))
		if err != nil {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		j.record(string(head[:]) + string(body))
		rep, err := parseMessage(string(body))
		if err != nil {
			writeV2(c, "cmd=error;rc=1;errmsg=unparsable;")
			continue
		}
		if raw, closeAfter, ok := j.hooked(rep.cmd, rep.kv); ok {
			io.WriteString(c, raw)
			if closeAfter {
				return
			}
			continue
		}
		switch rep.cmd {
		case "fullinit":
			// Slurm refuses a fullinit without these.
			if rep.kv["pmirank"] == "" || rep.kv["threaded"] == "" {
				writeV2(c, "cmd=fullinit-response;rc=3;errmsg=pmirank or threaded missing;")
				continue
			}
			writeV2(c, fmt.Sprintf("cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=%s;size=%d;appnum=%d;debugged=FALSE;pmiverbose=FALSE;", rep.kv["pmirank"], j.size, j.appNum))
		case "job-getid":
			writeV2(c, "cmd=job-getid-response;rc=0;jobid="+j.job+";")
		case "info-getjobattr":
			if v, ok := j.lookup(rep.kv["key"]); ok && rep.kv["key"] == "PMI_process_mapping" {
				writeV2(c, "cmd=info-getjobattr-response;rc=0;found=TRUE;value="+v+";")
			} else {
				writeV2(c, "cmd=info-getjobattr-response;rc=0;found=FALSE;")
			}
		case "kvs-put":
			if msg := j.store(rep.kv["key"], rep.kv["value"]); msg != "" {
				writeV2(c, "cmd=kvs-put-response;rc=7;errmsg="+msg+";")
			} else {
				writeV2(c, "cmd=kvs-put-response;rc=0;")
			}
		case "kvs-fence":
			j.fence()
			writeV2(c, "cmd=kvs-fence-response;rc=0;")
		case "kvs-get":
			if v, ok := j.lookup(rep.kv["key"]); ok {
				writeV2(c, "cmd=kvs-get-response;rc=0;found=TRUE;value="+v+";")
			} else {
				writeV2(c, "cmd=kvs-get-response;rc=0;found=FALSE;")
			}
		case "abort":
			return
		case "finalize":
			writeV2(c, "cmd=finalize-response;rc=0;")
			return
		default:
			writeV2(c, "cmd="+rep.cmd+"-response;rc=14;errmsg=unknown command;")
		}
	}
}
