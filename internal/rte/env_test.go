package rte

import (
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

var goodSecretHex = strings.Repeat("ab", MinSecretLen)

func launched(overrides map[string]string) map[string]string {
	m := map[string]string{
		EnvRank: "2", EnvSize: "4", EnvLocalRank: "2", EnvLocalSize: "4",
		EnvAppNum: "1", EnvJobID: "c0ffee12", EnvServer: "unix:///tmp/gompi.c0ffee12/rt.sock", EnvSecret: goodSecretHex,
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
	if j.Rank != 2 || j.Size != 4 || j.LocalRank != 2 || j.LocalSize != 4 || j.AppNum != 1 || j.JobID != "c0ffee12" || j.Singleton || len(j.Secret) != MinSecretLen {
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
		{"rank without size", map[string]string{EnvRank: "1"}, []string{EnvRank, `"1"`, EnvSize + " is not"}},
		{"appnum without size", map[string]string{EnvAppNum: "0"}, []string{EnvAppNum, `"0"`, EnvSize + " is not"}},
		{"appnum negative", launched(map[string]string{EnvAppNum: "-1"}), []string{EnvAppNum, `"-1"`, "non-negative integer"}},
		{"size not a number", launched(map[string]string{EnvSize: "four"}), []string{EnvSize, `"four"`, "positive integer"}},
		{"size zero", launched(map[string]string{EnvSize: "0"}), []string{EnvSize, `"0"`}},
		{"rank >= size", launched(map[string]string{EnvRank: "4"}), []string{EnvRank, `"4"`, "less than " + EnvSize + "=4"}},
		{"negative rank", launched(map[string]string{EnvRank: "-1"}), []string{EnvRank, `"-1"`, "non-negative"}},
		{"rank missing", launched(map[string]string{EnvRank: ""}), []string{EnvRank, "not set"}},
		{"local size > size", launched(map[string]string{EnvLocalSize: "5"}), []string{EnvLocalSize, `"5"`}},
		{"local rank >= local size", launched(map[string]string{EnvLocalRank: "3", EnvLocalSize: "2"}), []string{EnvLocalRank, `"3"`, EnvLocalSize + "=2"}},
		{"job id missing", launched(map[string]string{EnvJobID: ""}), []string{EnvJobID, "not set"}},
		{"job id with slash", launched(map[string]string{EnvJobID: "a/b"}), []string{EnvJobID, `"a/b"`}},
		{"server missing", launched(map[string]string{EnvServer: ""}), []string{EnvServer, "not set", EnvSize + "=4"}},
		{"server malformed", launched(map[string]string{EnvServer: "nowhere"}), []string{EnvServer, `"nowhere"`, "unix:///"}},
		{"server empty path", launched(map[string]string{EnvServer: "unix://"}), []string{EnvServer, "path is empty"}},
		{"secret not hex", launched(map[string]string{EnvSecret: "zz" + goodSecretHex[2:]}), []string{EnvSecret, "not valid hex"}},
		{"secret short", launched(map[string]string{EnvSecret: "abcd"}), []string{EnvSecret, "2 bytes", "at least 32"}},
		{"secret missing", launched(map[string]string{EnvSecret: ""}), []string{EnvSecret, "not set", EnvServer}},
		{"lifeline not a number", launched(map[string]string{EnvLifeline: "x"}), []string{EnvLifeline, `"x"`, "3 or more"}},
		{"lifeline on stdout", launched(map[string]string{EnvLifeline: "1"}), []string{EnvLifeline, `"1"`, "3 or more"}},
		{"session dir relative", launched(map[string]string{EnvSessionDir: "tmp/x"}), []string{EnvSessionDir, "absolute"}},
		{"session dir alone", map[string]string{EnvSessionDir: "/tmp/x"}, []string{EnvSessionDir, EnvSize + " is not"}},
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
	c, err := parseEnv(envOf(map[string]string{EnvRank: "0", EnvSize: "1", EnvJobID: "x1"}))
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
