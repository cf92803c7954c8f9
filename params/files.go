package params

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
)

// fileEntry is one "name = value" line of a parameter file.
type fileEntry struct {
	name, value string
	line        int
}

// readParamFile reads a parameter file. A missing file is an error wrapping
// fs.ErrNotExist; callers decide whether that matters.
func readParamFile(path string) ([]fileEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseParamFile(path, f)
}

// parseParamFile parses the mca-params.conf format: "name = value" lines,
// blank lines and "#" comment lines ignored, and a comment that follows
// whitespace stripped. It reports every bad line, naming path:line.
func parseParamFile(path string, r io.Reader) ([]fileEntry, error) {
	var (
		entries []fileEntry
		errs    []error
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(stripComment(sc.Text()))
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%s:%d: want \"name = value\", got %q", path, n, line))
		case !validName(name):
			errs = append(errs, fmt.Errorf("%s:%d: invalid parameter name %q", path, n, name))
		default:
			entries = append(entries, fileEntry{name: name, value: strings.TrimSpace(value), line: n})
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", path, err))
	}
	return entries, errors.Join(errs...)
}

// stripComment drops a whole-line comment, or a trailing comment that starts
// with whitespace followed by "#"; a "#" inside a value ("a#b") is kept.
func stripComment(line string) string {
	if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "#") {
		return ""
	}
	for i := 1; i < len(line); i++ {
		if line[i] == '#' && (line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}
