package pmpi

import (
	"slices"
	"sync"

	"github.com/gompi/gompi/internal/pml"
)

// The communicator hints gompi recognises (MPI 4.1, section 7.4.4), each
// "true" or "false", "false" unless set. mpi_assert_no_any_source and
// mpi_assert_no_any_tag let matching on the communicator look only at
// the receives and messages of one source or tag once many wait (see
// pml.MatchKeys), and a receive or probe that names the wildcard they
// exclude then fails. The other two change nothing: gompi's transports
// keep order at no cost, and a receive checks its length anyway.
var commHintNames = []string{
	"mpi_assert_no_any_source",
	"mpi_assert_no_any_tag",
	"mpi_assert_exact_length",
	"mpi_assert_allow_overtaking",
}

// hintSet is a communicator's hints in effect: recognised keys only.
type hintSet struct {
	mu   sync.Mutex
	vals map[string]string
}

func (h *hintSet) copyFrom(src *hintSet) {
	var vals map[string]string // nil for none: most communicators have none
	src.mu.Lock()
	if len(src.vals) > 0 {
		vals = copyMap(src.vals)
	}
	src.mu.Unlock()
	h.mu.Lock()
	h.vals = vals
	h.mu.Unlock()
}

// CommSetInfo sets comm's hints from info (MPI_Comm_set_info): the
// recognised keys of info replace their values, the others keep theirs,
// and keys gompi does not know are ignored, as MPI allows. A recognised
// key with a value other than "true" or "false" is an error.
func (*realAPI) CommSetInfo(comm *Comm, info *Info) error {
	const op = "comm set info"
	if err := checkComm(op, comm); err != nil {
		return err
	}
	if info == nil {
		return comm.handle(errorf(ClassArg, info.lock(op), "%s on %v", op, comm))
	}
	set, err := hintsOf(op, comm, info)
	if err != nil {
		return comm.handle(err)
	}
	h := &comm.ext.hints
	h.mu.Lock()
	if h.vals == nil {
		h.vals = map[string]string{}
	}
	for k, v := range set {
		h.vals[k] = v
	}
	h.mu.Unlock()
	comm.applyHints()
	return nil
}

// applyHints gives c's matching the keys its hints allow. Under the
// hints' lock, so that two SetInfo calls leave the engine as the hints.
func (c *Comm) applyHints() {
	h := &c.ext.hints
	h.mu.Lock()
	defer h.mu.Unlock()
	var k pml.MatchKeys
	if h.vals["mpi_assert_no_any_source"] == "true" {
		k |= pml.KeySource
	}
	if h.vals["mpi_assert_no_any_tag"] == "true" {
		k |= pml.KeyTag
	}
	if pml.MatchKeys(c.keys.Load()) != k {
		c.keys.Store(uint32(k))
		c.lib.engine.SetMatchKeys(c.context, k)
	}
}

// hintsOf returns the recognised hints of info, checked, for a call op
// on comm. A nil info (MPI_INFO_NULL) has none.
func hintsOf(op string, comm *Comm, info *Info) (map[string]string, error) {
	set := map[string]string{}
	if info == nil {
		return set, nil
	}
	if err := info.lock(op); err != nil {
		return nil, errorf(ClassArg, err, "%s on %v", op, comm)
	}
	defer info.mu.Unlock()
	for _, k := range info.keys {
		if !slices.Contains(commHintNames, k) {
			continue
		}
		v := info.vals[k]
		if v != "true" && v != "false" {
			return nil, errorf(ClassArg, nil, "%s on %v: hint %s=%q (want true or false)", op, comm, k, v)
		}
		set[k] = v
	}
	return set, nil
}

// CommGetInfo returns a new Info of comm's hints in effect
// (MPI_Comm_get_info): every recognised hint, with its default "false"
// unless set. The caller frees it.
func (*realAPI) CommGetInfo(comm *Comm) (*Info, error) {
	if err := checkComm("comm get info", comm); err != nil {
		return nil, err
	}
	h := &comm.ext.hints
	h.mu.Lock()
	defer h.mu.Unlock()
	info := theAPI.InfoCreate()
	for _, k := range commHintNames {
		v, ok := h.vals[k]
		if !ok {
			v = "false"
		}
		info.keys = append(info.keys, k)
		info.vals[k] = v
	}
	return info, nil
}
