package sm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/frameworks/btl/btltest"
)

// The segment made in a backing directory is handed to KeepJobFile, so
// that the job's cleanup finds it however the job ends; a refusal there
// fails Init and leaves no segment behind.
func TestSegmentIsKeptForTheJobsCleanup(t *testing.T) {
	backing := t.TempDir()
	c, err := openComponent(t, "btl_sm_backing_directory", backing)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	mods, err := c.Init(context.Background(), btl.InitEnv{Rank: 0, Size: 2, JobID: "jobkeep", LocalSize: 2,
		SessionDir: t.TempDir(), Modex: btltest.NewModex().For(0), Receiver: newInbox(),
		KeepJobFile: func(p string) error { kept = append(kept, p); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer mods[0].Finalize()
	if want := segmentPath(backing, "jobkeep"); len(kept) != 1 || kept[0] != want {
		t.Errorf("kept %v, want [%s]", kept, want)
	}

	c, err = openComponent(t, "btl_sm_backing_directory", backing)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Init(context.Background(), btl.InitEnv{Rank: 0, Size: 2, JobID: "jobrefused", LocalSize: 2,
		SessionDir: t.TempDir(), Modex: btltest.NewModex().For(0), Receiver: newInbox(),
		KeepJobFile: func(string) error { return errors.New("no room") }})
	if err == nil || !strings.Contains(err.Error(), "recording the segment") || !strings.Contains(err.Error(), "no room") {
		t.Errorf("Init with a refusing KeepJobFile: %v, want the refusal named", err)
	}
	if _, err := os.Stat(segmentPath(backing, "jobrefused")); !os.IsNotExist(err) {
		t.Errorf("the refused segment is still there: %v", err)
	}
}

// A segment of another layout version, as a gompi of another build would
// make it, is refused by name rather than misread.
func TestSegmentOfAnotherLayoutRefused(t *testing.T) {
	path := segmentPath(t.TempDir(), "jobv")
	seg, err := createSegment(path, "jobv", newLayout(2, minRingSize))
	if err != nil {
		t.Fatal(err)
	}
	defer seg.retire()
	binary.LittleEndian.PutUint32(seg.mem[offVersion:], layoutVersion+1)
	want := fmt.Sprintf("layout version %d; this gompi uses version %d", layoutVersion+1, layoutVersion)
	if _, err := openSegment(path, "jobv", 2); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("openSegment of another layout: %v, want %q", err, want)
	}
}
