package launcher

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/reaper"
)

// lifelineFD is the descriptor number of the lifeline in every rank: the
// first of exec.Cmd.ExtraFiles.
const lifelineFD = 3

// identityVars are set by the launcher for each rank and so dropped from the
// inherited environment, together with the reaper's switch.
var identityVars = []string{
	jobenv.Rank, jobenv.Size, jobenv.LocalRank, jobenv.LocalSize, jobenv.AppNum,
	jobenv.JobID, jobenv.Server, jobenv.Secret, jobenv.SessionDir, jobenv.Lifeline, reaper.EnvVar,
}

// rankEnvBase drops from env what each rank gets set for itself, and
// repeated names (the last one wins, as in exec.Cmd).
func rankEnvBase(env []string) []string {
	drop := map[string]bool{}
	for _, name := range identityVars {
		drop[name] = true
	}
	last := map[string]int{}
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	var out []string
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] && last[name] == i {
			out = append(out, kv)
		}
	}
	return out
}

// rankIdent is what a rank learns of itself and its job.
type rankIdent struct {
	rank, size, local, localSize int
	jobID, server, sessDir       string
	secret                       []byte
}

// rankEnv is the environment of one rank of app context appNum: the base,
// the app's exports, then the rank's identity.
func rankEnv(base []string, app App, appNum int, id rankIdent) []string {
	env := append(append([]string(nil), base...), app.Env...)
	return append(env,
		jobenv.AppNum+"="+strconv.Itoa(appNum),
		jobenv.Rank+"="+strconv.Itoa(id.rank),
		jobenv.Size+"="+strconv.Itoa(id.size),
		jobenv.LocalRank+"="+strconv.Itoa(id.local),
		jobenv.LocalSize+"="+strconv.Itoa(id.localSize),
		jobenv.JobID+"="+id.jobID,
		jobenv.Server+"="+id.server,
		jobenv.Secret+"="+hex.EncodeToString(id.secret),
		jobenv.SessionDir+"="+id.sessDir,
		jobenv.Lifeline+"="+strconv.Itoa(lifelineFD),
	)
}

// remoteEnv is what of the ranks' environment here goes to the ranks of
// other hosts: gompi's own variables (the --mca and --tune settings among
// them). The rest (PATH, HOME, TMPDIR...) is the other host's, from the
// daemon's login there, as Open MPI's ranks get theirs; -x exports go
// with their app context.
func remoteEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMPI_") {
			out = append(out, kv)
		}
	}
	return out
}
