package launcher

import "encoding/json"

// noteBinding records and logs the CPUs a daemon bound its ranks to, from
// its ready frame, as startAll logs this host's: gompirun cannot know
// another host's CPUs before its daemon looked.
func (j *job) noteBinding(h *remoteHost, ready []byte) {
	var cpus [][]int
	if err := json.Unmarshal(ready, &cpus); err != nil {
		j.log.Warn("the daemon's ready frame does not list its ranks' CPUs", "host", h.name, "error", err)
		return
	}
	h.mu.Lock()
	h.cpus = cpus
	h.mu.Unlock()
	for _, r := range h.ranks {
		if r.Local < len(cpus) {
			j.log.Debug("rank bound", "rank", r.Rank, "host", h.name, "cpus", cpus[r.Local])
		}
	}
}

// rankCPUs is every rank's CPUs by rank: this host's (local, bound to
// localCPUs by local index) and those the other hosts' daemons reported.
func (j *job) rankCPUs(local []int, localCPUs [][]int) [][]int {
	cpus := make([][]int, len(j.pids))
	for i, r := range local {
		if localCPUs != nil {
			cpus[r] = localCPUs[i]
		}
	}
	for h := range j.remoteHosts() {
		h.mu.Lock()
		for _, r := range h.ranks {
			if r.Local < len(h.cpus) {
				cpus[r.Rank] = h.cpus[r.Local]
			}
		}
		h.mu.Unlock()
	}
	return cpus
}
