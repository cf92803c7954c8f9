package hostmap

import "fmt"

// Restrict narrows an allocation (a hostfile's hosts, or Slurm's nodes) to
// the hosts that --host names, as Open MPI's documentation describes for
// --host inside an existing host list: each named host must be in the
// allocation, the narrower list's order and slot counts apply, and the
// allocation's user and max_slots stay. source names the allocation in
// errors ("hostfile hosts", "the Slurm allocation").
//
// Open MPI 4.1 lets --host replace a hostfile given with it instead,
// accepting hosts the hostfile lacks; the documented filter is the safer
// reading, since a host outside a Slurm allocation is not the job's to use.
func Restrict(alloc []Host, source string, sel []Host) ([]Host, error) {
	byName := make(map[string]Host, len(alloc))
	for _, h := range alloc {
		byName[h.Name] = h
	}
	out := make([]Host, 0, len(sel))
	for _, s := range sel {
		h, ok := byName[s.Name]
		if !ok {
			return nil, fmt.Errorf("host %s is not in %s: want one of its %s", s.Name, source,
				describeHosts(alloc, func(h Host) string { return plural(h.Slots, "slot") }))
		}
		if h.MaxSlots > 0 && s.Slots > h.MaxSlots {
			return nil, fmt.Errorf("host %s: %s given, but %s caps it at max_slots=%d", s.Name, plural(s.Slots, "slot"), source, h.MaxSlots)
		}
		h.Slots, h.SlotsUnknown = s.Slots, false
		out = append(out, h)
	}
	return out, nil
}
