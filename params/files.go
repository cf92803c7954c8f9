package params

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// MaxLineBytes bounds one line of a parameter file. No parameter needs a
// longer value, and the bound keeps a corrupt or wrong file (a binary, a log)
// from being read into memory whole.
const MaxLineBytes = 64 << 10

// parseParamFile parses the mca-params.conf format: "name = value" lines,
// blank lines and "#" comment lines ignored, and a comment that follows
// whitespace stripped. It reports every bad line, naming path:line; a line
// longer than MaxLineBytes is reported and skipped.
func parseParamFile(path string, r io.Reader) ([]fileEntry, error) {
	var (
		entries []fileEntry
		errs    []error
	)
	lr := lineReader{r: bufio.NewReader(r), max: MaxLineBytes}
	for n := 1; ; n++ {
		text, size, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", path, n, err))
			break
		}
		if size > MaxLineBytes {
			errs = append(errs, fmt.Errorf("%s:%d: the line is %d bytes long; a parameter file line may have at most %d bytes",
				path, n, size, MaxLineBytes))
			continue
		}
		line := strings.TrimSpace(stripComment(text))
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%s:%d: want \"name = value\", got %s", path, n, quoteShort(line)))
		case !validName(name):
			errs = append(errs, fmt.Errorf("%s:%d: invalid parameter name %s", path, n, quoteShort(name)))
		default:
			entries = append(entries, fileEntry{name: name, value: strings.TrimSpace(value), line: n})
		}
	}
	return entries, errors.Join(errs...)
}

// lineReader reads lines of at most max bytes, measuring and skipping the
// rest of a longer one instead of holding it.
type lineReader struct {
	r   *bufio.Reader
	max int
}

// next returns the next line without its end of line ("\n" or "\r\n")
// and the line's length; for a line longer than max the text is empty. It
// returns io.EOF after the last line.
func (lr *lineReader) next() (string, int, error) {
	var (
		buf  []byte
		size int
	)
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		if size <= lr.max+2 { // room for "\r\n"
			buf = append(buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && size == 0 {
			return "", 0, io.EOF
		}
		if err != nil && err != io.EOF {
			return "", size, err
		}
		if err == nil { // the chunk ends with "\n"
			size--
		}
		break
	}
	if size > lr.max+1 {
		return "", size, nil
	}
	line := strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r")
	if len(line) > lr.max {
		return "", len(line), nil
	}
	return line, len(line), nil
}

// quoteShort quotes s for a message, shortened to its start when long, so
// that a huge value does not flood the terminal.
func quoteShort(s string) string {
	const keep = 60
	if len(s) <= keep+20 {
		return strconv.Quote(s)
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
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
