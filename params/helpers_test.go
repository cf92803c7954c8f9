package params

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clearEnv unsets every GOMPI_ variable for the test, restoring them after.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GOMPI_") {
			t.Setenv(k, "") // registers the restore
			os.Unsetenv(k)
		}
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// testRegistry has the core parameters plus a few typical component ones.
func testRegistry(t *testing.T) *Registry {
	t.Helper()
	r := NewRegistry()
	tcp := r.Scope("btl", "tcp")
	tcp.Size(Spec{Name: "eager_limit", Default: "64k", Help: "Eager limit.", Level: 4})
	tcp.List(Spec{Name: "if_include", Help: "Interfaces to use.", Level: 2})
	tcp.Int(Spec{
		Name: "priority", Default: "10", Help: "Selection priority.", Level: 5,
		Synonyms:   []string{"btl_tcp_prio", "btl_tcp_pri"},
		Deprecated: []string{"btl_tcp_old_priority"},
	})
	r.Scope("coll", "tuned").Enum(Spec{
		Name: "algorithm", Default: "ring", Help: "Algorithm.", Level: 5,
		Values: []EnumValue{{"ring", "a ring"}, {"tree", "a binary tree"}},
	})
	r.Scope("prof", "base").Verbosity(Spec{Name: "verbose", Default: "none", Help: "Verbosity.", Level: 8})
	if err := tcp.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func mustResolve(t *testing.T, r *Registry, in Inputs) *Snapshot {
	t.Helper()
	s, err := r.Resolve(in)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return s
}

func warningsContaining(s *Snapshot, sub string) []string {
	var out []string
	for _, w := range s.Warnings() {
		if strings.Contains(w, sub) {
			out = append(out, w)
		}
	}
	return out
}
