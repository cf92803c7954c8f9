package rte

import (
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/jobenv"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

var goodSecretHex = strings.Repeat("ab", jobenv.MinSecretLen)

func launched(overrides map[string]string) map[string]string {
	m := map[string]string{
		jobenv.Rank: "2", jobenv.Size: "4", jobenv.LocalRank: "2", jobenv.LocalSize: "4",
		jobenv.AppNum: "1", jobenv.JobID: "c0ffee12", jobenv.Server: "unix:///tmp/gompi.c0ffee12/rt.sock", jobenv.Secret: goodSecretHex,
	}
	for k, v := range overrides {
		m[k] = v
	}
	return m
}

func TestParseEnvLaunched(t *testing.T) {
	c, err := parseEnv(envOf(launched(nil)))
	if err != nil {
		t.Fatal(err)
	}
	j := c.job
	if j.Rank != 2 || j.Size != 4 || j.LocalRank != 2 || j.LocalSize != 4 || j.AppNum != 1 || j.JobID != "c0ffee12" || j.Singleton || len(j.Secret) != jobenv.MinSecretLen {
		t.Fatalf("job %+v", j)
	}
	if c.server != "unix:///tmp/gompi.c0ffee12/rt.sock" {
		t.Fatalf("server %q", c.server)
	}
}

func TestParseEnvSingleton(t *testing.T) {
	c, err := parseEnv(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !c.job.Singleton || c.job.Rank != 0 || c.job.Size != 1 || c.server != "" {
		t.Fatalf("config %+v", c)
	}
}

func TestParseEnvErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string // every part must be in the message
	}{
		{"rank without size", map[string]string{jobenv.Rank: "1"}, []string{jobenv.Rank, `"1"`, jobenv.Size + " is not"}},
		{"appnum without size", map[string]string{jobenv.AppNum: "0"}, []string{jobenv.AppNum, `"0"`, jobenv.Size + " is not"}},
		{"appnum negative", launched(map[string]string{jobenv.AppNum: "-1"}), []string{jobenv.AppNum, `"-1"`, "non-negative integer"}},
		{"size not a number", launched(map[string]string{jobenv.Size: "four"}), []string{jobenv.Size, `"four"`, "positive integer"}},
		{"size zero", launched(map[string]string{jobenv.Size: "0"}), []string{jobenv.Size, `"0"`}},
		{"rank >= size", launched(map[string]string{jobenv.Rank: "4"}), []string{jobenv.Rank, `"4"`, "less than " + jobenv.Size + "=4"}},
		{"negative rank", launched(map[string]string{jobenv.Rank: "-1"}), []string{jobenv.Rank, `"-1"`, "non-negative"}},
		{"rank missing", launched(map[string]string{jobenv.Rank: ""}), []string{jobenv.Rank, "not set"}},
		{"local size > size", launched(map[string]string{jobenv.LocalSize: "5"}), []string{jobenv.LocalSize, `"5"`}},
		{"local rank >= local size", launched(map[string]string{jobenv.LocalRank: "3", jobenv.LocalSize: "2"}), []string{jobenv.LocalRank, `"3"`, jobenv.LocalSize + "=2"}},
		{"job id missing", launched(map[string]string{jobenv.JobID: ""}), []string{jobenv.JobID, "not set"}},
		{"job id with slash", launched(map[string]string{jobenv.JobID: "a/b"}), []string{jobenv.JobID, `"a/b"`}},
		{"server missing", launched(map[string]string{jobenv.Server: ""}), []string{jobenv.Server, "not set", jobenv.Size + "=4"}},
		{"server malformed", launched(map[string]string{jobenv.Server: "nowhere"}), []string{jobenv.Server, `"nowhere"`, "unix:///"}},
		{"server empty path", launched(map[string]string{jobenv.Server: "unix://"}), []string{jobenv.Server, "path is empty"}},
		{"secret not hex", launched(map[string]string{jobenv.Secret: "zz" + goodSecretHex[2:]}), []string{jobenv.Secret, "not valid hex"}},
		{"secret short", launched(map[string]string{jobenv.Secret: "abcd"}), []string{jobenv.Secret, "2 bytes", "at least 32"}},
		{"secret missing", launched(map[string]string{jobenv.Secret: ""}), []string{jobenv.Secret, "not set", jobenv.Server}},
		{"lifeline not a number", launched(map[string]string{jobenv.Lifeline: "x"}), []string{jobenv.Lifeline, `"x"`, "3 or more"}},
		{"lifeline on stdout", launched(map[string]string{jobenv.Lifeline: "1"}), []string{jobenv.Lifeline, `"1"`, "3 or more"}},
		{"session dir relative", launched(map[string]string{jobenv.SessionDir: "tmp/x"}), []string{jobenv.SessionDir, "absolute"}},
		{"session dir alone", map[string]string{jobenv.SessionDir: "/tmp/x"}, []string{jobenv.SessionDir, jobenv.Size + " is not"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseEnv(envOf(tt.env))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), goodSecretHex[4:]) {
				t.Errorf("error %q shows the secret", err)
			}
		})
	}
}

func TestParseEnvOneRankWithoutServer(t *testing.T) {
	c, err := parseEnv(envOf(map[string]string{jobenv.Rank: "0", jobenv.Size: "1", jobenv.JobID: "x1"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.job.Singleton || c.server != "" || c.job.JobID != "x1" {
		t.Fatalf("config %+v", c)
	}
}

func TestAbortStatus(t *testing.T) {
	for code, want := range map[int]int{0: 0, 7: 7, 255: 255, -1: 255, 256: 1, 257: 1, 1 << 20: 1} {
		if got := AbortStatus(code); got != want {
			t.Errorf("AbortStatus(%d) = %d, want %d", code, got, want)
		}
	}
}
