package mca

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// LinkedQueryEnvVar, set to a file path, asks a gompi program for the
// components it registered: Init writes them there (Linked.WriteFile) and
// exits 0 instead of joining a job. gompirun asks before it starts the
// ranks, so that it judges the component names of --mca btl self,tcp by
// what the program registers rather than by what gompirun itself links.
const LinkedQueryEnvVar = "GOMPI_LINKED_QUERY"

// Linked lists a program's registered components by framework, each
// framework's names sorted.
type Linked map[string][]string

// Linked returns the components registered in r.
func (r *Registry) Linked() Linked {
	out := Linked{}
	for _, f := range r.Frameworks() {
		names := []string{}
		for _, c := range r.Components(f.Name) {
			names = append(names, c.Name)
		}
		out[f.Name] = names
	}
	return out
}

// WriteFile writes l to path as JSON, whole or not at all.
func (l Linked) WriteFile(path string) error {
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("writing linked components to %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".linked-*")
	if err != nil {
		return fmt.Errorf("writing linked components: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing linked components to %s: %w", path, err)
	}
	return nil
}

// ReadLinked reads what Linked.WriteFile wrote.
func ReadLinked(path string) (Linked, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Linked
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: not a list of linked components: %w", path, err)
	}
	return l, nil
}
