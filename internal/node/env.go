package node

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/reaper"
)

// LifelineFD is the descriptor number of the lifeline in every rank: the
// first of exec.Cmd.ExtraFiles.
const LifelineFD = 3

// identityVars are set by the launcher for each rank and so dropped from the
// inherited environment, together with the reaper's switch.
var identityVars = []string{
	jobenv.Rank, jobenv.Size, jobenv.LocalRank, jobenv.LocalSize, jobenv.AppNum,
	jobenv.JobID, jobenv.Server, jobenv.Secret, jobenv.SessionDir, jobenv.Lifeline, reaper.EnvVar,
}

// RankEnvBase drops from env what each rank gets set for itself, and
// repeated names (the last one wins, as in exec.Cmd).
func RankEnvBase(env []string) []string {
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

// RankIdent is what a rank learns of itself and its job.
type RankIdent struct {
	Rank, Size, Local, LocalSize int
	JobID, Server, SessionDir    string
	Secret                       []byte
}

// RankEnv is the environment of one rank of app context appNum: the base,
// the app's exports, then the rank's identity.
func RankEnv(base []string, app App, appNum int, id RankIdent) []string {
	env := append(append([]string(nil), base...), app.Env...)
	return append(env,
		jobenv.AppNum+"="+strconv.Itoa(appNum),
		jobenv.Rank+"="+strconv.Itoa(id.Rank),
		jobenv.Size+"="+strconv.Itoa(id.Size),
		jobenv.LocalRank+"="+strconv.Itoa(id.Local),
		jobenv.LocalSize+"="+strconv.Itoa(id.LocalSize),
		jobenv.JobID+"="+id.JobID,
		jobenv.Server+"="+id.Server,
		jobenv.Secret+"="+hex.EncodeToString(id.Secret),
		jobenv.SessionDir+"="+id.SessionDir,
		jobenv.Lifeline+"="+strconv.Itoa(LifelineFD),
	)
}
