package singleton

import (
	"context"
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
