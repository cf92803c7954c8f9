package mca

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// mustPanic runs f and returns its panic message, failing if it does not panic.
func mustPanic(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("did not panic")
		}
		msg = fmt.Sprint(r)
	}()
	f()
	return ""
}

// testInfo is the identity of a component of the test framework's API 2.
func testInfo(framework, name string, newComponent func() Component) Info {
	return Info{
		Framework: framework, Name: name, Version: Version{1, 0, 0},
		ModelVersion: ModelVersion(), FrameworkVersion: Version{2, 0, 0}, New: newComponent,
	}
}

func plain(framework, name string) Info {
	return testInfo(framework, name, func() Component { return &recComponent{} })
}

func registerAlpha(reg *Registry)      { reg.Register(plain(testFW, "alpha")) }
func registerAlphaAgain(reg *Registry) { reg.Register(plain(testFW, "alpha")) }

func TestRegistryRejectsProgrammingErrors(t *testing.T) {
	tests := []struct {
		name string
		do   func(*Registry)
		say  []string
	}{
		{"framework with underscore", func(r *Registry) { r.RegisterFramework(FrameworkSpec{Name: "my_fw"}) },
			[]string{`framework name "my_fw"`, "without '_'"}},
		{"empty framework", func(r *Registry) { r.RegisterFramework(FrameworkSpec{}) }, []string{`framework name ""`}},
		{"duplicate framework", func(r *Registry) { r.RegisterFramework(FrameworkSpec{Name: testFW}) },
			[]string{`framework "test" registered twice`, "registry_test.go"}},
		{"empty component", func(r *Registry) { r.Register(plain(testFW, "")) }, []string{"empty framework or component name"}},
		{"component framework with underscore", func(r *Registry) { r.Register(plain("te_st", "x")) },
			[]string{"malformed framework", "without '_'"}},
		{"unknown framework", func(r *Registry) { r.Register(plain("nope", "x")) },
			[]string{`unknown framework "nope" (known: test)`}},
		{"reserved base", func(r *Registry) { r.Register(plain(testFW, "base")) }, []string{"reserved"}},
		{"bad component name", func(r *Registry) { r.Register(plain(testFW, "Alpha")) }, []string{"malformed name"}},
		{"nil constructor", func(r *Registry) { r.Register(Info{Framework: testFW, Name: "x"}) }, []string{"nil constructor"}},
		{"duplicate component", registerAlphaAgain,
			[]string{`"mca_test_alpha" registered twice`, "registerAlpha (", "registerAlphaAgain ("}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := NewRegistry()
			reg.RegisterFramework(FrameworkSpec{Name: testFW, Version: Version{2, 0, 0}})
			registerAlpha(reg)
			msg := mustPanic(t, func() { tt.do(reg) })
			for _, s := range tt.say {
				if !strings.Contains(msg, s) {
					t.Errorf("panic %q does not say %q", msg, s)
				}
			}
		})
	}
}

func TestRegistryListsSorted(t *testing.T) {
	reg := NewRegistry()
	reg.RegisterFramework(FrameworkSpec{Name: "zeta"})
	reg.RegisterFramework(FrameworkSpec{Name: testFW, Version: Version{2, 0, 0}})
	for _, n := range []string{"gamma", "alpha", "beta"} {
		reg.Register(plain(testFW, n))
	}
	var fws, comps []string
	for _, f := range reg.Frameworks() {
		fws = append(fws, f.Name)
	}
	for _, c := range reg.Components(testFW) {
		comps = append(comps, c.FullName())
	}
	if got := strings.Join(fws, ","); got != "test,zeta" {
		t.Errorf("frameworks %s", got)
	}
	if got := strings.Join(comps, ","); got != "mca_test_alpha,mca_test_beta,mca_test_gamma" {
		t.Errorf("components %s", got)
	}
}

// TestRegistryConcurrent is meant for -race: registration and listing from
// many goroutines at once.
func TestRegistryConcurrent(t *testing.T) {
	reg := NewRegistry()
	reg.RegisterFramework(FrameworkSpec{Name: testFW, Version: Version{2, 0, 0}})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			reg.Register(plain(testFW, fmt.Sprintf("c%d", i)))
		}()
		go func() {
			defer wg.Done()
			_ = reg.Components(testFW)
			_ = reg.Frameworks()
		}()
	}
	wg.Wait()
	if n := len(reg.Components(testFW)); n != 32 {
		t.Fatalf("%d components registered, want 32", n)
	}
}
