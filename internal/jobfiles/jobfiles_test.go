package jobfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gompi.job")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	shm := filepath.Join(shmDir, "gompi.removejobfilestest.sm")
	if err := os.WriteFile(shm, nil, 0o600); err != nil {
		t.Skipf("no %s here: %v", shmDir, err)
	}
	other := filepath.Join(shmDir, "gompi.removejobfilestestother.sm")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(other)
	if err := Remove("removejobfilestest", dir); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{dir, shm} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there", gone)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another job's segment went too: %v", err)
	}
	if err := Remove("removejobfilestest", dir); err != nil {
		t.Errorf("removing again: %v", err)
	}
}

// TestRemoveFollowsLinks: a job file kept outside /dev/shm and the
// session directory goes with the job once linked there, and a link that
// leads to a file of another name, or of another job, removes nothing.
func TestRemoveFollowsLinks(t *testing.T) {
	backing, dir := t.TempDir(), filepath.Join(t.TempDir(), "gompi.linkjob")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(backing, "gompi.linkjob.sm")
	keep := filepath.Join(backing, "precious")
	otherJob := filepath.Join(backing, "gompi.otherjob.sm")
	for _, f := range []string{seg, keep, otherJob} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Link("linkjob", dir, seg); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{keep, otherJob} {
		if err := Link("linkjob", dir, bad); err == nil || !strings.Contains(err.Error(), "must start with gompi.linkjob.") {
			t.Errorf("Link(%s) = %v, want a refusal naming the rule", bad, err)
		}
	}
	// Links made by hand that a careless or hostile writer could leave.
	if err := os.Symlink(keep, filepath.Join(dir, "gompi.linkjob.x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(otherJob, filepath.Join(dir, "gompi.otherjob.sm")); err != nil {
		t.Fatal(err)
	}
	if err := Remove("linkjob", dir); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{dir, seg} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there", gone)
		}
	}
	for _, kept := range []string{keep, otherJob} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s went too: %v", kept, err)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"c0ffee12": true, "a": true, "A.b_c-9": true, strings.Repeat("x", 64): true,
		"": false, strings.Repeat("x", 65): false, ".a": false, "_a": false, "-a": false,
		"a/b": false, "a*": false, "a b": false, "a\n": false, "é": false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}
