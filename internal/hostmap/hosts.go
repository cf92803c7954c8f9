package hostmap

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Host is one host a job may run on.
type Host struct {
	Name string
	// User is the account to log in as (user@host in a hostfile); empty
	// means the launching user.
	User string
	// Slots is how many ranks the host takes before it counts as
	// oversubscribed.
	Slots int
	// MaxSlots is a hard limit that even --oversubscribe respects; 0 means
	// none.
	MaxSlots int
	// SlotsUnknown marks a hostfile host whose lines gave neither slots= nor
	// max_slots=. Open MPI then counts the host's processor cores, which
	// only a visit to the host can tell; Slots holds one per line in their
	// place, and Place refuses to fill such hosts when no rank count is
	// given rather than start fewer ranks than Open MPI would.
	SlotsUnknown bool
}

// ParseHosts reads the value of --host: a comma-separated list of
// host[:slots]. A host without :slots counts one slot per mention, and a
// host named several times gets the sum of its slots, so "a,b:4,a" is a
// with 2 slots and b with 4, in order of first mention. An IPv6 address
// takes its slot count after brackets: "[fe80::1]:2".
func ParseHosts(s string) ([]Host, error) {
	var hosts []Host
	index := map[string]int{}
	for i, entry := range strings.Split(s, ",") {
		name, slots, err := parseHostEntry(entry)
		if err != nil {
			return nil, fmt.Errorf("host entry %d %q: %w", i+1, entry, err)
		}
		if j, ok := index[name]; ok {
			hosts[j].Slots += slots
			continue
		}
		index[name] = len(hosts)
		hosts = append(hosts, Host{Name: name, Slots: slots})
	}
	return hosts, nil
}

// parseHostEntry splits one --host entry into its name and slot count.
func parseHostEntry(entry string) (name string, slots int, err error) {
	if entry == "" {
		return "", 0, fmt.Errorf("empty: want host or host:slots")
	}
	name = entry
	count, hasCount := "", false
	if rest, ok := strings.CutPrefix(entry, "["); ok {
		addr, after, closed := strings.Cut(rest, "]")
		if !closed {
			return "", 0, fmt.Errorf("no closing ]: want [address] or [address]:slots")
		}
		name = addr
		if after != "" {
			if count, hasCount = strings.CutPrefix(after, ":"); !hasCount {
				return "", 0, fmt.Errorf("%q after ]: want [address] or [address]:slots", after)
			}
		}
	} else if strings.Count(entry, ":") == 1 {
		// More colons make a bare IPv6 address, which has no slot count.
		name, count, hasCount = strings.Cut(entry, ":")
	}
	if err := checkName(name); err != nil {
		return "", 0, err
	}
	if !hasCount {
		return name, 1, nil
	}
	if slots, err = positive(count); err != nil {
		return "", 0, fmt.Errorf("slot count %q: %w", count, err)
	}
	return name, slots, nil
}

// checkName refuses host names that cannot name a host, so that a stray
// character in an option shows up here rather than as a failed login.
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("empty host name")
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("host name %q is not valid UTF-8: want a host name or address", name)
	}
	if i := strings.IndexFunc(name, badInName); i >= 0 {
		return fmt.Errorf("host name %q contains %q: want a host name or address", name, []rune(name[i:])[0])
	}
	// A colon belongs to IPv6 addresses only (a zone, %eth0, allowed).
	if strings.Contains(name, ":") {
		if a, err := netip.ParseAddr(name); err != nil || !a.Is6() {
			return fmt.Errorf("host name %q contains ':' and is no IPv6 address: want a host name or address", name)
		}
	}
	return nil
}

// badInName reports the characters no host name or address has, and that
// the option syntaxes here use as separators.
func badInName(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune("=,@[]#", r)
}

// maxCount bounds every count this package reads (slots, ranks per node,
// tasks per node), far above any real host and low enough that sums over
// many hosts cannot overflow an int.
const maxCount = 1 << 20

// positive reads a count from 1 to maxCount; the caller names what it is.
func positive(value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > maxCount {
		return 0, fmt.Errorf("want a positive integer (at most %d)", maxCount)
	}
	return n, nil
}
