package launcher

import "encoding/json"

// logBinding logs the CPUs a daemon bound its ranks to, from its ready
// frame, as startAll logs this host's: gompirun cannot know another
// host's CPUs before its daemon looked.
func (j *job) logBinding(h *remoteHost, ready []byte) {
	var cpus [][]int
	if err := json.Unmarshal(ready, &cpus); err != nil {
		j.log.Warn("the daemon's ready frame does not list its ranks' CPUs", "host", h.name, "error", err)
		return
	}
	for _, r := range h.ranks {
		if r.Local < len(cpus) {
			j.log.Debug("rank bound", "rank", r.Rank, "host", h.name, "cpus", cpus[r.Local])
		}
	}
}
