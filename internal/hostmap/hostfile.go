package hostmap

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// ParseHostfile reads a hostfile in Open MPI's format; name is the file's
// name, used in errors ("hosts:3: ...").
//
// Each line names one host, optionally as user@host, followed by any of
// slots=N and max_slots=M; "#" starts a comment anywhere on a line, and
// blank lines are skipped. A host on several lines is one host, at the place
// of its first line, with the sum of the lines' slots= (a line with neither
// key counts one slot, Open MPI's "one line per slot" form); max_slots= and
// the user, when more than one line gives them, must agree.
//
// A host whose lines all give max_slots=M and none slots= gets M slots, as in
// Open MPI. A host whose lines give neither gets one slot per line and
// SlotsUnknown: Open MPI 4 and 5 count the host's processor cores instead,
// which cannot be known without visiting the host.
func ParseHostfile(name string, r io.Reader) ([]Host, error) {
	var (
		hosts []Host
		lines []hostLines // per host, in the same order
		index = map[string]int{}
		sc    = bufio.NewScanner(r)
		n     int
	)
	for sc.Scan() {
		n++
		l, err := parseHostLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if l == nil {
			continue
		}
		i, ok := index[l.name]
		if !ok {
			i = len(hosts)
			index[l.name] = i
			hosts = append(hosts, Host{Name: l.name})
			lines = append(lines, hostLines{})
		}
		h, hl := &hosts[i], &lines[i]
		switch {
		case l.user != "" && h.User != "" && l.user != h.User:
			return nil, fmt.Errorf("%s:%d: %s: user %s, but line %d gave user %s: a host has one user", name, n, l.name, l.user, hl.userLine, h.User)
		case l.max > 0 && h.MaxSlots > 0 && l.max != h.MaxSlots:
			return nil, fmt.Errorf("%s:%d: %s: max_slots=%d, but line %d gave max_slots=%d: give one limit per host", name, n, l.name, l.max, hl.maxLine, h.MaxSlots)
		}
		if l.user != "" && h.User == "" {
			h.User, hl.userLine = l.user, n
		}
		if l.max > 0 && h.MaxSlots == 0 {
			h.MaxSlots, hl.maxLine = l.max, n
		}
		switch {
		case l.slots > 0:
			h.Slots += l.slots
			hl.slotsGiven = true
		case l.max > 0:
			hl.slotsGiven = true // the limit stands in for the count below
		default:
			h.Slots++ // Open MPI's "one line per slot" form
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	for i := range hosts {
		h, hl := &hosts[i], lines[i]
		if h.Slots == 0 { // only max_slots= lines: Open MPI takes the limit as the count
			h.Slots = h.MaxSlots
		}
		if h.MaxSlots > 0 && h.Slots > h.MaxSlots {
			return nil, fmt.Errorf("%s:%d: %s: its lines add up to %d slots, more than max_slots=%d: lower slots= or raise max_slots=", name, hl.maxLine, h.Name, h.Slots, h.MaxSlots)
		}
		h.SlotsUnknown = !hl.slotsGiven
	}
	return hosts, nil
}

// hostLines is what merging remembers about a host's lines.
type hostLines struct {
	userLine, maxLine int // where User and MaxSlots came from, for errors
	slotsGiven        bool
}

// hostLine is one parsed hostfile line; 0 means not given.
type hostLine struct {
	name, user string
	slots, max int
}

// spacedEquals lets "slots = 4" mean "slots=4", as Open MPI's lexer does.
var spacedEquals = regexp.MustCompile(`\s*=\s*`)

// parseHostLine parses one line; it returns nil for a blank or comment line.
func parseHostLine(text string) (*hostLine, error) {
	text, _, _ = strings.Cut(text, "#")
	fields := strings.Fields(spacedEquals.ReplaceAllString(text, "="))
	if len(fields) == 0 {
		return nil, nil
	}
	var l hostLine
	first := fields[0]
	if strings.Contains(first, "=") {
		return nil, fmt.Errorf("%s: want a host name first, then slots=N or max_slots=M", first)
	}
	if user, host, ok := strings.Cut(first, "@"); ok {
		if user == "" {
			return nil, fmt.Errorf("%s: empty user before @: want user@host or host", first)
		}
		l.user, first = user, host
	}
	if name, count, ok := strings.Cut(first, ":"); ok && !strings.Contains(count, ":") {
		if _, err := strconv.Atoi(count); err == nil {
			return nil, fmt.Errorf("%s: a hostfile gives slots as %s slots=%s (host:slots is --host's form)", first, name, count)
		}
	}
	if err := checkName(first); err != nil {
		return nil, err
	}
	l.name = first
	for _, f := range fields[1:] {
		key, value, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("%s: want slots=N or max_slots=M after the host name", f)
		}
		var dst *int
		switch key {
		case "slots":
			dst = &l.slots
		case "max_slots":
			dst = &l.max
		default:
			return nil, fmt.Errorf("%s: unknown key %q: want slots=N or max_slots=M", f, key)
		}
		if *dst != 0 {
			return nil, fmt.Errorf("%s: %s given twice on one line", f, key)
		}
		n, err := positive(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		*dst = n
	}
	if l.max > 0 && l.slots > l.max {
		return nil, fmt.Errorf("slots=%d is more than max_slots=%d: want slots at most max_slots", l.slots, l.max)
	}
	return &l, nil
}
