package jobfiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PartsDir is the directory of the session directory where the ranks'
// profiling tools leave their parts of a job-wide report, as files named
// <tool>.<rank>, for gompirun to merge when the job ends.
const PartsDir = "parts"

// validTool reports whether a tool's name is letters, digits, '_' and
// '-' alone: it names files.
func validTool(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// WritePart writes rank's part of tool's report as
// <sessionDir>/parts/<tool>.<rank>, atomically: to a temporary file first,
// renamed when complete, so that gompirun never reads half a part from a
// rank that died writing it. Writing it again replaces it.
func WritePart(sessionDir, tool string, rank int, part []byte) error {
	if !validTool(tool) {
		return fmt.Errorf("tool name %q: want letters, digits, _ and - only", tool)
	}
	if rank < 0 {
		return fmt.Errorf("rank %d: must not be negative", rank)
	}
	dir := filepath.Join(sessionDir, PartsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+tool+"."+strconv.Itoa(rank)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(part)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, tool+"."+strconv.Itoa(rank)))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// ReadParts reads the parts the ranks of a job of size ranks left in
// sessionDir, by tool, then by rank. A file that is no part (a name that
// is not <tool>.<rank> with a rank of the job, or one it cannot read) is
// reported in bad and skipped; a temporary file a rank left unfinished is
// skipped quietly. No parts directory is no parts.
func ReadParts(sessionDir string, size int) (parts map[string]map[int][]byte, bad []error) {
	dir := filepath.Join(sessionDir, PartsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	parts = map[string]map[int][]byte{}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		tool, r, _ := strings.Cut(name, ".")
		rank, err := strconv.Atoi(r)
		if !validTool(tool) || err != nil || rank < 0 || rank >= size || r != strconv.Itoa(rank) || !e.Type().IsRegular() {
			bad = append(bad, fmt.Errorf("%s: not a part: want a file named <tool>.<rank>, rank 0 to %d", filepath.Join(dir, name), size-1))
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			bad = append(bad, fmt.Errorf("tool %s, rank %d: %w", tool, rank, err))
			continue
		}
		if parts[tool] == nil {
			parts[tool] = map[int][]byte{}
		}
		parts[tool][rank] = b
	}
	return parts, bad
}
