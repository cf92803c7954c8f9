package mca

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/mca/pluginpb"
	"github.com/gompi/gompi/params"
)

// componentPathDefault is where plugins are looked for unless the user says
// otherwise: the installation's lib/gompi, then the user's own.
const componentPathDefault = "$prefix/lib/gompi:~/.gompi/components"

// found is an executable on the component path that looks like a plugin.
type found struct {
	framework, name, path string
}

// expandPath splits a component path and expands $prefix and a leading ~.
func expandPath(path string) []string {
	var dirs []string
	for _, d := range strings.Split(path, ":") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(d, "$prefix"); ok {
			d = params.InstallPrefix() + rest
		}
		if rest, ok := strings.CutPrefix(d, "~/"); ok {
			home, err := os.UserHomeDir()
			if err != nil {
				continue
			}
			d = filepath.Join(home, rest)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// scanPath lists the plugins in dirs, the first directory winning a name.
// notes says what was skipped and why.
func scanPath(dirs []string) (plugins []found, notes []string) {
	seen := map[string]string{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !os.IsNotExist(err) {
				notes = append(notes, fmt.Sprintf("component path: skipping %s: %v", dir, err))
			}
			continue
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if !strings.HasPrefix(e.Name(), "mca_") {
				continue // not meant as a component
			}
			fw, name, ok := pluginName(path)
			if !ok {
				notes = append(notes, fmt.Sprintf("component path: skipping %s: the name does not fit "+
					"mca_<framework>_<component> (lower-case letters and digits, '_' between words)", path))
				continue
			}
			info, err := os.Stat(path) // follows links
			if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
				notes = append(notes, fmt.Sprintf("component path: skipping %s: not an executable file", path))
				continue
			}
			full := FullName(fw, name)
			if first, dup := seen[full]; dup {
				notes = append(notes, fmt.Sprintf("component path: skipping %s: %s comes first", path, first))
				continue
			}
			seen[full] = path
			plugins = append(plugins, found{framework: fw, name: name, path: path})
		}
	}
	return plugins, notes
}

// loadPlugins finds the plugins on the component path, describes them and
// loads them into their frameworks beside the static components. It
// returns its notes on what it skipped, to be logged once the log level is
// known; a plugin that fails to describe itself is refused, and its
// framework reports it.
func (s *System) loadPlugins(path string) (debug []string) {
	plugins, notes := scanPath(expandPath(path))
	debug = append(debug, notes...)
	var (
		wg    sync.WaitGroup
		descs = make([]*pluginpb.Description, len(plugins))
		errs  = make([]error, len(plugins))
	)
	for i, p := range plugins {
		f, ok := s.byName[p.framework]
		switch {
		case !ok:
			debug = append(debug, fmt.Sprintf("component path: skipping %s: there is no %s framework", p.path, p.framework))
			plugins[i].path = ""
		case f.spec.Plugin == nil:
			debug = append(debug, fmt.Sprintf("component path: skipping %s: the %s framework takes no out-of-process components",
				p.path, p.framework))
			plugins[i].path = ""
		case f.has(p.name):
			debug = append(debug, fmt.Sprintf("component path: skipping %s: the built-in %s component of the same name wins",
				p.path, FullName(p.framework, p.name)))
			plugins[i].path = ""
		default:
			wg.Add(1)
			go func() {
				defer wg.Done()
				descs[i], errs[i] = describePlugin(context.Background(), p.path, describeLog())
			}()
		}
	}
	wg.Wait()
	for i, p := range plugins {
		if p.path == "" {
			continue
		}
		f := s.byName[p.framework]
		info := Info{Framework: p.framework, Name: p.name, Origin: p.path}
		err := errs[i]
		if err == nil {
			d := descs[i]
			info.Version, info.ModelVersion, info.FrameworkVersion = version(d.GetVersion()),
				version(d.GetModelVersion()), version(d.GetFrameworkVersion())
			info.DefaultPriority = int(d.GetDefaultPriority())
			if d.GetFramework() != p.framework || d.GetName() != p.name {
				err = pluginError(p.path, fmt.Errorf("describe: it describes itself as %s; a plugin's executable "+
					"must be named after its component", FullName(d.GetFramework(), d.GetName())))
			}
			adapt := f.spec.Plugin
			info.New = func() Component { return adapt(&Plugin{path: p.path, desc: d}) }
		}
		reg := &Registration{Info: info, registrant: p.path}
		if err != nil {
			f.refuse(reg, err)
			continue
		}
		f.load(reg, s.params)
	}
	return debug
}

// describeLog is the logger of a plugin's describe step: none. It runs
// before the log levels are resolved, and what goes wrong comes back as an
// error with the plugin's last stderr lines; go-plugin's own messages
// about starting and stopping the process are noise there.
func describeLog() hclog.Logger { return hclog.NewNullLogger() }

func version(v *pluginpb.Version) Version {
	return Version{Major: int(v.GetMajor()), Minor: int(v.GetMinor()), Patch: int(v.GetPatch())}
}
