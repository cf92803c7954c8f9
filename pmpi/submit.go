package pmpi

import "github.com/gompi/gompi/internal/jobfiles"

// SubmitPart hands gompirun this rank's part of a profiling tool's
// job-wide report: gompirun merges the parts of every rank that submitted
// one, with the merger the tool registered (prof.RegisterMerger), when the
// job ends, however it ends. The part is written as a file in the job's
// session directory, atomically, so it may be large; submitting again
// replaces it. tool is the tool's name: letters, digits, _ and -.
//
// It reports false when there is no gompirun to merge (a singleton, or
// before Init): the tool then writes its report itself.
func SubmitPart(tool string, part []byte) (bool, error) {
	l := current.Load()
	if l == nil || l.job.SessionDir == "" {
		return false, nil
	}
	if err := jobfiles.WritePart(l.job.SessionDir, tool, l.job.Rank, part); err != nil {
		return false, err
	}
	return true, nil
}
