package launcher

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/reaper"
	"github.com/gompi/gompi/internal/rte"
)

// lifelineFD is the descriptor number of the lifeline in every rank: the
// first of exec.Cmd.ExtraFiles.
const lifelineFD = 3

// identityVars are set by the launcher for each rank and so dropped from the
// inherited environment, together with the reaper's switch.
var identityVars = []string{
	rte.EnvRank, rte.EnvSize, rte.EnvLocalRank, rte.EnvLocalSize, rte.EnvAppNum,
	rte.EnvJobID, rte.EnvServer, rte.EnvSecret, rte.EnvSessionDir, rte.EnvLifeline, reaper.EnvVar,
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
		rte.EnvAppNum+"="+strconv.Itoa(appNum),
		rte.EnvRank+"="+strconv.Itoa(id.rank),
		rte.EnvSize+"="+strconv.Itoa(id.size),
		rte.EnvLocalRank+"="+strconv.Itoa(id.local),
		rte.EnvLocalSize+"="+strconv.Itoa(id.localSize),
		rte.EnvJobID+"="+id.jobID,
		rte.EnvServer+"="+id.server,
		rte.EnvSecret+"="+hex.EncodeToString(id.secret),
		rte.EnvSessionDir+"="+id.sessDir,
		rte.EnvLifeline+"="+strconv.Itoa(lifelineFD),
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
