package rte

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/frameworks/ess"
	"github.com/gompi/gompi/internal/jobenv"
)

func singleton(t *testing.T) (*Client, *bytes.Buffer, *int) {
	t.Helper()
	var stderr bytes.Buffer
	exitCode := -1
	c, err := connect(context.Background(), config{job: ess.Job{Size: 1, LocalSize: 1, Singleton: true}}, &stderr, func(code int) { exitCode = code })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, &stderr, &exitCode
}

func TestSingletonStore(t *testing.T) {
	c, _, _ := singleton(t)
	ctx := context.Background()
	j := c.Job()
	if !j.Singleton || j.Rank != 0 || j.Size != 1 || len(j.JobID) != 8 || len(j.Secret) != jobenv.MinSecretLen {
		t.Fatalf("job %+v", j)
	}
	if err := c.Put(ctx, "k", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	if err := c.Fence(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := c.Get(ctx, 0, "k")
	if err != nil || string(v) != "v1" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if _, err := c.Get(ctx, 1, "k"); err == nil || !strings.Contains(err.Error(), `key "k" of rank 1`) || !strings.Contains(err.Error(), "out of range 0..0") {
		t.Fatalf("Get of rank 1: %v", err)
	}
	if err := c.Finalize(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSingletonGetWaits(t *testing.T) {
	c, _, _ := singleton(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		time.Sleep(20 * time.Millisecond)
		c.Put(ctx, "late", []byte("here"))
	}()
	if v, err := c.Get(ctx, 0, "late"); err != nil || string(v) != "here" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	short, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	if _, err := c.Get(short, 0, "never"); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `"never"`) {
		t.Fatalf("Get of a missing key: %v", err)
	}
}

func TestSingletonAbortExits(t *testing.T) {
	c, stderr, exitCode := singleton(t)
	c.Abort(context.Background(), 7, "boom", nil)
	if *exitCode != 7 || stderr.String() != "gompi: rank 0 called Abort with code 7: boom\n" {
		t.Fatalf("exit %d, stderr %q", *exitCode, stderr)
	}
}

func TestPutValidation(t *testing.T) {
	c, _, _ := singleton(t)
	ctx := context.Background()
	if err := c.Put(ctx, "", nil); err == nil || !strings.Contains(err.Error(), "key is empty") {
		t.Errorf("empty key: %v", err)
	}
	if err := c.Put(ctx, "big", make([]byte, maxValueSize+1)); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("big value: %v", err)
	}
}

func TestJobReturnsACopyOfTheSecret(t *testing.T) {
	c, _, _ := singleton(t)
	j := c.Job()
	j.Secret[0] ^= 0xff
	if bytes.Equal(j.Secret, c.Job().Secret) {
		t.Fatal("changing the returned secret changed the client's")
	}
}
