// Package prof_test runs profiling stacks in real jobs: a program that
// links recording tools (two that note the order of their code around a
// few calls, and every, which notes each call of the API that reaches it)
// is launched under gompirun with different prof selections, and what
// the tools saw is checked call by call. It also builds and runs the
// example tool of docs/profiling.md.
package prof_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/jobtest"
)

var gompirun, stackcheck, partsjob, names string

func TestMain(m *testing.M) {
	jobtest.Main(m, map[string]string{"gompirun": "../../cmd/gompirun", "stackcheck": "./testdata/stackcheck",
		"partsjob": "./testdata/partsjob", "names": "./testdata/names"}, func(bins map[string]string) {
		gompirun, stackcheck, partsjob, names = bins["gompirun"], bins["stackcheck"], bins["partsjob"], bins["names"]
	})
}

// rank0Calls are the calls rank 0 of stackcheck makes that the recorders
// override, in order. Pcontrol(7), called before Init, reaches the tools
// as Init stacks them, before Init itself; Pcontrol(2) after Finalize
// reaches them too.
var rank0Calls = []string{"Pcontrol(7)", "Init", "Pcontrol(0)", "Send", "Allreduce", "Finalize", "Pcontrol(2)"}

// nested is what tools listed outermost first record around calls:
// before-code in list order, after-code in reverse.
func nested(tools []string, calls []string) string {
	var lines []string
	for _, c := range calls {
		for _, t := range tools {
			lines = append(lines, t+" before "+c)
		}
		for i := len(tools) - 1; i >= 0; i-- {
			lines = append(lines, tools[i]+" after "+c)
		}
	}
	return strings.Join(lines, "\n")
}

func TestStackOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		tools []string
		stack string // as logged: the recorders and the tools that record nothing
	}{
		{"listed order", []string{"--mca", "prof", "rec1,rec2"}, []string{"rec1", "rec2"}, "rec1,rec2"},
		{"reversed", []string{"--mca", "prof", "rec2,rec1"}, []string{"rec2", "rec1"}, "rec2,rec1"},
		{"one", []string{"--mca", "prof", "rec1"}, []string{"rec1"}, "rec1"},
		{"exclude list, by priority", []string{"--mca", "prof", "^rec1,stats,trace"}, []string{"rec2"}, "rec2,every"},
		{"none named, none runs", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--timeout", "60", "-np", "2", "--mca", "prof_base_verbose", "100"}, tc.args...)
			j := jobtest.Run(t, gompirun, 90*time.Second, nil, append(args, stackcheck)...)
			if j.Code != 0 {
				t.Fatalf("job failed\n%v", j)
			}
			if got, want := strings.TrimSpace(j.Stdout), nested(tc.tools, rank0Calls); got != want {
				t.Fatalf("the tools saw:\n%s\nwant:\n%s", got, want)
			}
			// Each rank logs its stack once, outermost first; no stack, no line.
			built := regexp.MustCompile(`profiling stack built: rank=(\d) outermost first="?([^"\s]*)`).FindAllStringSubmatch(j.Stderr, -1)
			want := 2
			if tc.stack == "" {
				want = 0
			}
			if len(built) != want {
				t.Fatalf("%d lines say the stack was built, want %d\n%v", len(built), want, j)
			}
			for _, m := range built {
				if m[2] != tc.stack {
					t.Errorf("rank %s logged the stack %q, want %q", m[1], m[2], tc.stack)
				}
			}
		})
	}
}

func TestUnknownToolIsAnError(t *testing.T) {
	j := jobtest.Run(t, gompirun, 90*time.Second, nil, "--timeout", "60", "-np", "2", "--mca", "prof", "rec1,nosuch", stackcheck)
	if j.Code == 0 || !strings.Contains(j.Stderr, `no component named "nosuch"`) || !strings.Contains(j.Stderr, "rec1, rec2") {
		t.Fatalf("want a failed job naming the unknown tool and the available ones\n%v", j)
	}
}
