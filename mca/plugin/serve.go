// Package plugin is the SDK of out-of-process components: a program that
// builds an mca.Component and calls Serve becomes an executable that gompi
// finds as mca_<framework>_<component> on mca_base_component_path and runs
// through the same lifecycle as a component linked into the program.
//
// A framework that takes plugins has its own SDK package on top of this
// one (prof's profplugin, coll's collplugin) that adds its service.
//
// The plugin's stdout is go-plugin's handshake channel. Importing this
// package sends whatever the program writes to stdout before Serve to
// stderr instead, so a stray print cannot break the handshake; the host
// logs it. Only output from init functions of packages initialized before
// this one can still reach stdout.
package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/mca/pluginpb"
	"github.com/gompi/gompi/params"
)

// handshake is the real stdout, kept for go-plugin's handshake line while
// file descriptor 1 points at stderr. It is nil when the program was not
// started by a gompi host.
var handshake *os.File

func init() {
	if os.Getenv(mca.PluginCookieKey) != mca.PluginCookieValue {
		return // not started as a plugin: Serve explains
	}
	fd, err := unix.Dup(1)
	if err != nil {
		return
	}
	if err := unix.Dup2(2, 1); err != nil {
		_ = unix.Close(fd)
		return
	}
	unix.CloseOnExec(fd)
	handshake = os.NewFile(uintptr(fd), "handshake")
}

// Service registers a framework's own gRPC service for the component c.
type Service func(s *grpc.Server, c mca.Component)

// Serve runs the component info describes until the host stops it, then
// exits the program. Without a gompi host it prints what the program is
// and exits with status 1.
func Serve(info mca.Info, services ...Service) {
	if handshake == nil {
		fmt.Fprintf(os.Stderr, "%s is an out-of-process gompi component: put it on mca_base_component_path "+
			"and gompi starts it when a job needs it\n", os.Args[0])
		os.Exit(1)
	}
	log := Logger(info.Name)
	c := info.Instantiate()
	srv := &server{info: info, comp: c, log: log}
	go watchParent(log)
	os.Stdout = handshake
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: mca.PluginHandshake(),
		VersionedPlugins: mca.PluginSets(func(s *grpc.Server) {
			pluginpb.RegisterComponentServer(s, srv)
			for _, register := range services {
				register(s, c)
			}
		}),
		GRPCServer: goplugin.DefaultGRPCServer,
		Logger:     log,
	})
	os.Exit(0)
}

// Logger returns the logger a plugin writes through: hclog JSON on stderr,
// which the host re-logs under the component's name with each record's
// level, at the level the host's component runs at.
func Logger(name string) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv(mca.PluginLogLevelEnv))
	if level == hclog.NoLevel {
		level = hclog.Warn
	}
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: level, Output: os.Stderr, JSONFormat: true})
}

// watchParent ends the plugin when its host is gone. The host holds the
// write end of the lifeline and never writes: end of file means the host
// has exited, however it ended (even SIGKILL), so no plugin outlives its
// rank.
func watchParent(log hclog.Logger) {
	fd, err := strconv.Atoi(os.Getenv(mca.PluginLifelineEnv))
	if err != nil || fd < 3 {
		log.Warn("no lifeline to the host; the plugin may outlive it", "variable", mca.PluginLifelineEnv)
		return
	}
	_, _ = io.Copy(io.Discard, os.NewFile(uintptr(fd), "lifeline"))
	log.Debug("host process gone; exiting")
	// The host cannot remove the socket's directory any more.
	if dir := os.Getenv(mca.PluginSocketDirEnv); dir != "" {
		_ = os.RemoveAll(dir)
	}
	os.Exit(1)
}

// server serves the lifecycle of one component.
type server struct {
	pluginpb.UnimplementedComponentServer
	info mca.Info
	comp mca.Component
	log  hclog.Logger

	mu   sync.Mutex
	reg  *params.Registry
	defs []params.Def
	env  *mca.Env
}

// describe registers the component's parameters once.
func (s *server) describe() ([]params.Def, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reg != nil {
		return s.defs, nil
	}
	reg := params.NewRegistry()
	r := reg.Scope(s.info.Framework, s.info.Name)
	if err := errors.Join(s.comp.RegisterParams(r), r.Err()); err != nil {
		return nil, status.Errorf(codes.Internal, "register parameters: %v", err)
	}
	for _, d := range reg.Defs() {
		if d.Framework == s.info.Framework && d.Component == s.info.Name {
			s.defs = append(s.defs, d)
		}
	}
	s.reg = reg
	return s.defs, nil
}

func (s *server) Describe(context.Context, *pluginpb.DescribeRequest) (*pluginpb.Description, error) {
	defs, err := s.describe()
	if err != nil {
		return nil, err
	}
	d := &pluginpb.Description{
		Framework:        s.info.Framework,
		Name:             s.info.Name,
		Version:          pbVersion(s.info.Version),
		ModelVersion:     pbVersion(s.info.ModelVersion),
		FrameworkVersion: pbVersion(s.info.FrameworkVersion),
		DefaultPriority:  int32(s.info.DefaultPriority),
	}
	for _, def := range defs {
		p := &pluginpb.Param{
			Name: def.Name, Kind: def.Kind.String(), Default: def.Default, Help: def.Help, Level: int32(def.Level),
			Synonyms: def.Synonyms, Deprecated: def.Deprecated, Accepts: def.Accepts,
		}
		for _, v := range def.Values {
			p.Values = append(p.Values, &pluginpb.EnumValue{Name: v.Name, Help: v.Help})
		}
		d.Params = append(d.Params, p)
	}
	return d, nil
}

func (s *server) Open(ctx context.Context, req *pluginpb.OpenRequest) (*pluginpb.Outcome, error) {
	if _, err := s.describe(); err != nil {
		return nil, err
	}
	in := params.Inputs{}
	for name, v := range req.GetParams() {
		in.CommandLine = append(in.CommandLine, params.Setting{Name: name, Value: v})
	}
	// Peek: the environment the plugin inherited names the host's other
	// parameters, which this registry does not know.
	snap, err := s.reg.Peek(in)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "%v", err)
	}
	env := &mca.Env{Params: snap, Logger: s.log, Priority: int(req.GetPriority()), Requested: req.GetRequested()}
	s.mu.Lock()
	s.env = env
	s.mu.Unlock()
	return outcome(0, s.comp.Open(ctx, env))
}

func (s *server) Query(ctx context.Context, req *pluginpb.QueryRequest) (*pluginpb.Outcome, error) {
	s.mu.Lock()
	env := s.env
	s.mu.Unlock()
	if env == nil {
		return nil, status.Error(codes.FailedPrecondition, "query before open")
	}
	env.Priority = int(req.GetPriority())
	prio, err := s.comp.Query(ctx, env)
	return outcome(prio, err)
}

func (s *server) Close(context.Context, *pluginpb.CloseRequest) (*pluginpb.CloseReply, error) {
	if err := s.comp.Close(); err != nil {
		return nil, status.Errorf(codes.Internal, "%v", err)
	}
	return &pluginpb.CloseReply{}, nil
}

// outcome maps a lifecycle hook's error to the wire: a decline is an
// answer, a fatal error FailedPrecondition, any other error Internal.
func outcome(prio int, err error) (*pluginpb.Outcome, error) {
	switch {
	case err == nil:
		return &pluginpb.Outcome{Priority: int32(prio)}, nil
	case errors.Is(err, mca.ErrDeclined):
		reason := strings.TrimPrefix(err.Error(), mca.ErrDeclined.Error()+": ")
		return &pluginpb.Outcome{Declined: true, Reason: reason}, nil
	case errors.Is(err, mca.ErrFatal):
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	return nil, status.Error(codes.Internal, err.Error())
}

func pbVersion(v mca.Version) *pluginpb.Version {
	return &pluginpb.Version{Major: uint32(v.Major), Minor: uint32(v.Minor), Patch: uint32(v.Patch)}
}
