package pmi

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestReadEnvErrors(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want []string // each must appear in the error
	}{
		{map[string]string{"PMI_FD": "x", "PMI_RANK": "0", "PMI_SIZE": "1"}, []string{`PMI_FD="x"`, "allowed"}},
		{map[string]string{"PMI_FD": "-3", "PMI_RANK": "0", "PMI_SIZE": "1"}, []string{`PMI_FD="-3"`, "0 or more"}},
		{map[string]string{"PMI_FD": "5", "PMI_RANK": "0", "PMI_SIZE": "0"}, []string{`PMI_SIZE="0"`, "1 or more"}},
		{map[string]string{"PMI_FD": "5", "PMI_RANK": "4", "PMI_SIZE": "4"}, []string{"PMI_RANK=4", "PMI_SIZE=4", "below"}},
		{map[string]string{"PMI_FD": "5", "PMI_RANK": "one", "PMI_SIZE": "4"}, []string{`PMI_RANK="one"`}},
		{map[string]string{"PMI_FD": "5", "PMI_SIZE": "4"}, []string{"PMI_FD=5", "without PMI_RANK"}},
		{map[string]string{"PMI_FD": "5", "PMI_RANK": "0"}, []string{"PMI_FD=5", "without PMI_SIZE"}},
		{map[string]string{"PMI_FD": "5", "PMI_JOBID": "7.0"}, []string{"PMI_FD=5", "without PMI_RANK", "PMI-2"}},
		{map[string]string{"PMI_PORT": "nohost", "PMI_ID": "0"}, []string{`PMI_PORT="nohost"`, "host:port"}},
		{map[string]string{"PMI_PORT": "h:0", "PMI_ID": "0"}, []string{`PMI_PORT="h:0"`, "1 to 65535"}},
		{map[string]string{"PMI_PORT": "h:70000", "PMI_ID": "0"}, []string{`PMI_PORT="h:70000"`}},
		{map[string]string{"PMI_PORT": ":80", "PMI_ID": "0"}, []string{`PMI_PORT=":80"`}},
		{map[string]string{"PMI_PORT": "h:80"}, []string{`PMI_PORT="h:80"`, "without PMI_ID"}},
		{map[string]string{"PMI_PORT": "h:80", "PMI_ID": "-1"}, []string{`PMI_ID="-1"`}},
		{map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2"}, []string{"partial", "PMI_RANK", "neither PMI_FD nor PMI_PORT"}},
		{map[string]string{"PMI_JOBID": "12.0"}, []string{"partial", `PMI_JOBID="12.0"`}},
	}
	for _, tc := range cases {
		_, err := readEnv(envOf(tc.env), Auto)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %v, want it to contain %q", tc.env, err, w)
			}
		}
		if errors.Is(err, ErrNotLaunched) {
			t.Errorf("%v: ErrNotLaunched for a malformed environment", tc.env)
		}
	}

	if _, err := readEnv(envOf(nil), Auto); !errors.Is(err, ErrNotLaunched) {
		t.Errorf("empty environment: %v, want ErrNotLaunched", err)
	}
	if _, err := Open(envOf(nil), Auto); !errors.Is(err, ErrNotLaunched) {
		t.Errorf("Open in an empty environment: %v, want ErrNotLaunched", err)
	}
	if _, err := readEnv(envOf(map[string]string{"PMI_FD": "5", "PMI_RANK": "0", "PMI_SIZE": "1"}), 3); err == nil || !strings.Contains(err.Error(), "allowed are 0 (auto), 1 and 2") {
		t.Errorf("version 3: %v", err)
	}
}

func TestReadEnvChoices(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want Version
		fd   int
		port string
	}{
		{map[string]string{"PMI_FD": "5", "PMI_RANK": "0", "PMI_SIZE": "2"}, V1, 5, ""},
		{map[string]string{"PMI_FD": "5", "PMI_RANK": "1", "PMI_SIZE": "2", "PMI_JOBID": "77.0"}, V2, 5, ""},
		{map[string]string{"PMI_PORT": "vm:39277", "PMI_ID": "1"}, V1, -1, "vm:39277"},
		// PMI_FD wins over PMI_PORT, as in MPICH's clients.
		{map[string]string{"PMI_FD": "5", "PMI_RANK": "0", "PMI_SIZE": "1", "PMI_PORT": "bad"}, V1, 5, ""},
	}
	for _, tc := range cases {
		e, err := readEnv(envOf(tc.env), Auto)
		if err != nil {
			t.Errorf("%v: %v", tc.env, err)
			continue
		}
		if e.version != tc.want || e.fd != tc.fd || e.port != tc.port {
			t.Errorf("%v: version %v fd %d port %q, want %v %d %q", tc.env, e.version, e.fd, e.port, tc.want, tc.fd, tc.port)
		}
	}
}

func TestOpenNotASocket(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// Open closes the descriptor it is given, so give it a copy.
	fd, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(envOf(map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": "0", "PMI_SIZE": "1"}), V1)
	if err == nil || !strings.Contains(err.Error(), "PMI_FD="+strconv.Itoa(fd)+": not a socket") {
		t.Errorf("Open with a pipe as PMI_FD = %v", err)
	}

	_, err = Open(envOf(map[string]string{"PMI_FD": "987", "PMI_RANK": "0", "PMI_SIZE": "1"}), V1)
	if err == nil || !strings.Contains(err.Error(), "PMI_FD=987") {
		t.Errorf("Open with a closed PMI_FD = %v", err)
	}
}
