package singleton

import (
	"context"
	"strings"
	"testing"
)

func TestConnect(t *testing.T) {
	rt, err := (&Component{}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	j := rt.Job()
	if !j.Singleton || j.Rank != 0 || j.Size != 1 || j.LocalSize != 1 || len(j.Secret) == 0 || j.JobID == "" {
		t.Errorf("a singleton's job: %+v", j)
	}
	ctx := context.Background()
	if err := rt.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := rt.Fence(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := rt.Get(ctx, 0, "k"); err != nil || string(v) != "v" {
		t.Errorf("Get = %q, %v; want what was put", v, err)
	}
}

// TestUnjoined: a process that a launcher started as one of several, by
// an interface no component took, is refused with the way out; one that
// no launcher started, or srun started alone, is a singleton.
func TestUnjoined(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // in the error; "" for none
	}{
		{nil, ""},
		{map[string]string{"SLURM_STEP_NUM_TASKS": "1", "SLURM_PROCID": "0"}, ""},
		{map[string]string{"SLURM_STEP_NUM_TASKS": "4", "SLURM_PROCID": "2"}, "task 2 of 4 with no PMI"},
		{map[string]string{"PMIX_NAMESPACE": "slurm.pmix.7.0", "SLURM_STEP_NUM_TASKS": "4"}, "PMIX_NAMESPACE slurm.pmix.7.0"},
	} {
		err := unjoined(func(k string) string { return tc.env[k] })
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v; want a singleton", tc.env, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v; want an error with %q", tc.env, err, tc.want)
		}
	}
}
