package params

import (
	"fmt"
	"sync"
	"testing"
)

func TestConcurrentRegisterAndRead(t *testing.T) {
	clearEnv(t)
	r := NewRegistry()
	const workers = 32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			reg := r.Scope("fw", fmt.Sprintf("c%d", w))
			for i := range 20 {
				reg.Int(Spec{Name: fmt.Sprintf("p%d", i), Default: fmt.Sprint(i), Help: "h", Level: 1})
				// Everyone also registers the same shared parameter: a no-op after the first.
				r.Scope("fw", "shared").Bool(Spec{Name: "flag", Default: "true", Help: "h", Level: 1})
				r.Lookup("fw_shared_flag")
				r.Defs()
			}
			if err := reg.Err(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, want := len(r.Defs()), workers*20+1+2; got != want {
		t.Fatalf("%d defs, want %d", got, want)
	}

	s := mustResolve(t, r, Inputs{CommandLine: []Setting{{"fw_c3_p4", "99"}}})
	p := Param[int]{name: "fw_c3_p4"}
	for range workers {
		wg.Go(func() {
			for range 50 {
				if p.Get(s) != 99 {
					t.Error("wrong value")
				}
				v, _ := s.Lookup("fw_shared_flag")
				if v.Parsed != true {
					t.Error("wrong flag")
				}
				s.Values()
				s.Warnings()
			}
		})
	}
	wg.Wait()
}
