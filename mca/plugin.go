package mca

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gompi/gompi/mca/pluginpb"
	"github.com/gompi/gompi/params"
)

// Out-of-process components are executables named mca_<framework>_<name>
// that speak gRPC through hashicorp/go-plugin. The host starts one with
// the cookie below in its environment; the plugin answers on stdout with
// the protocol version it speaks, which must be this program's component
// model major version.
const (
	// PluginCookieKey is outside the GOMPI_MCA_ namespace, so the parameter
	// system never sees it. The cookie only tells a plugin that gompi
	// started it; it is not a security measure.
	PluginCookieKey   = "GOMPI_PLUGIN_COOKIE"
	PluginCookieValue = "mca_component_v1_9d3f0c5e2b7a4e18"
	// PluginLogLevelEnv carries the component's log level to the plugin,
	// whose logger the SDK builds before anything else runs.
	PluginLogLevelEnv = "GOMPI_PLUGIN_LOG_LEVEL"
	// PluginLifelineEnv names the plugin's descriptor of its lifeline: the
	// read end of a pipe that reaches end of file when the host is gone.
	PluginLifelineEnv = "GOMPI_PLUGIN_LIFELINE_FD"
	// pluginSetName is the go-plugin name of the one plugin every
	// executable serves; its gRPC server carries every service.
	pluginSetName = "component"
)

// ErrPlugin marks the failure of an out-of-process component: it did not
// start, answered nonsense or died. The message names its executable and
// ends with its last lines on stderr; like the other sentinels, ErrPlugin
// matches with errors.Is without adding its text.
var ErrPlugin = errors.New("out-of-process component failed")

// pluginError is err, from the plugin at path, marked ErrPlugin.
func pluginError(path string, err error) error {
	return marked{fmt.Errorf("%s: %w", path, err), ErrPlugin}
}

// PluginHandshake is the handshake both sides use.
func PluginHandshake() goplugin.HandshakeConfig {
	return goplugin.HandshakeConfig{
		ProtocolVersion:  ModelMajor,
		MagicCookieKey:   PluginCookieKey,
		MagicCookieValue: PluginCookieValue,
	}
}

// PluginSets returns the versioned plugin sets both sides use: at the
// component model's major version, one gRPC plugin whose server side
// registers the services that register adds (the plugin SDK passes it;
// the host passes nil).
func PluginSets(register func(*grpc.Server)) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{
		ModelMajor: {pluginSetName: &grpcPlugin{register: register}},
	}
}

type grpcPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	register func(*grpc.Server)
}

func (p *grpcPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	if p.register == nil {
		return errors.New("mca: no services to serve")
	}
	p.register(s)
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return c, nil
}

// pluginStartTimeout bounds a plugin's start-up, and pluginCallTimeout each
// lifecycle call: a loaded machine may take seconds to start a process or
// to answer, but a broken plugin must not hang Init.
const (
	pluginStartTimeout = 30 * time.Second
	pluginCallTimeout  = 60 * time.Second
)

// callContext bounds a lifecycle call to pluginCallTimeout, or to what is
// left of ctx if that is less, and says how long that is.
func callContext(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	within := pluginCallTimeout
	if dl, ok := ctx.Deadline(); ok {
		within = max(0, min(within, time.Until(dl)))
	}
	ctx, cancel := context.WithTimeout(ctx, within)
	return ctx, cancel, within
}

// noAnswer is a call that ran out of time, said without gRPC's words.
type noAnswer struct{ within time.Duration }

func (e noAnswer) Error() string {
	return fmt.Sprintf("no answer within %gs (a plugin must answer each call of the host; is it stuck?)",
		e.within.Round(100*time.Millisecond).Seconds())
}

// timedOut turns a call's expired deadline, of the given length, into noAnswer.
func timedOut(err error, within time.Duration) error {
	if status.Code(err) == codes.DeadlineExceeded {
		return noAnswer{within}
	}
	return err
}

// process is one running plugin executable.
type process struct {
	path   string
	client *goplugin.Client
	conn   *grpc.ClientConn
	// lifeline is the write end of a pipe whose read end the plugin holds.
	// The host never writes to it; when the host dies, however it dies, the
	// plugin reads end of file and exits (the SDK's watchdog).
	lifeline *os.File
	sockets  string // the directory of the plugin's socket
	pid      int
	stderr   *tail
	log      *hostLog
}

// startPlugin starts the executable at path and connects to it. The caller
// must call stop, also after an error from later calls.
func startPlugin(path string, log hclog.Logger) (*process, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, pluginError(path, err)
	}
	p := &process{path: path, lifeline: w, stderr: newTail(20), log: &hostLog{Logger: log}}
	var run *procRunner
	p.client = goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  PluginHandshake(),
		VersionedPlugins: PluginSets(nil),
		// The plugin's socket goes in a directory of its own (go-plugin
		// names it in PluginSocketDirEnv), in the job's session directory
		// when there is one (the job removes it however it ends); stop
		// removes it, and so does the plugin when its host dies.
		UnixSocketConfig: &goplugin.UnixSocketConfig{TempDir: os.Getenv(SessionDirEnv)},
		// spec is go-plugin's command line, without the program: its
		// environment and stdin.
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, sockets string) (runner.Runner, error) {
			p.sockets = sockets
			cmd := exec.Command(path)
			cmd.Stdin = spec.Stdin
			// go-plugin gives the child the host's stdin, so the lifeline
			// is an extra descriptor, the first after stderr.
			cmd.ExtraFiles = []*os.File{r}
			cmd.Env = append(spec.Env,
				PluginLogLevelEnv+"="+log.GetLevel().String(),
				PluginLifelineEnv+"=3")
			pr, err := newProcRunner(cmd, w)
			run = pr
			return pr, err
		},
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Logger:           p.log,
		StartTimeout:     pluginStartTimeout,
		Stderr:           p.stderr,
		SyncStdout:       pluginOutput{log: log, stream: "stdout"},
		SyncStderr:       pluginOutput{log: log, stream: "stderr", tail: p.stderr},
	})
	rpc, err := p.client.Client()
	_ = r.Close() // started or not, the child has its copy and the host needs none
	if err != nil {
		p.stop()
		var notRun *fs.PathError
		if errors.As(err, &notRun) && notRun.Op == "fork/exec" {
			return nil, pluginError(path, fmt.Errorf("start: %w", err)) // no process, so no stderr to speak of
		}
		return nil, p.failure("start", refusal(err))
	}
	run.started()
	p.pid = run.pid
	raw, err := rpc.Dispense(pluginSetName)
	if err != nil {
		p.stop()
		return nil, p.failure("start", err)
	}
	p.conn = raw.(*grpc.ClientConn)
	return p, nil
}

// PluginSocketDirEnv is go-plugin's variable for the directory a plugin
// creates its socket in.
const PluginSocketDirEnv = "PLUGIN_UNIX_SOCKET_DIR"

// SessionDirEnv is the job's session directory, which gompirun sets for
// its ranks and removes at the end of the job (jobenv.SessionDir).
const SessionDirEnv = "GOMPI_SESSION_DIR"

// refusal rewrites go-plugin's start-up errors in the terms of gompi.
func refusal(err error) error {
	if first, _, long := strings.Cut(err.Error(), "\nThis usually means"); long {
		// go-plugin's advice is about architectures and libraries; the
		// usual cause here is another program, or a print on stdout.
		if strings.HasSuffix(first, "\nFailed to read any lines from plugin's stdout") {
			return errors.New("it exited, or closed its stdout, before writing its handshake line there: " +
				"it is not a gompi plugin, or it failed before its handshake")
		}
		// One line: the reason goes into one-line listings and log records.
		return fmt.Errorf("%s: it is not a gompi plugin, or it wrote to stdout before its handshake",
			strings.ReplaceAll(first, "\n", "; "))
	}
	if strings.Contains(err.Error(), "incompatible API version") {
		return fmt.Errorf("%w: it speaks another component protocol than this program's %d "+
			"(the component model's major version; rebuild the plugin against this gompi): %w",
			ErrVersion, ModelMajor, err)
	}
	return err
}

// stop ends the process: go-plugin closes the connection, waits for the
// plugin to exit and kills it if it does not.
func (p *process) stop() {
	if p.client != nil {
		p.client.Kill()
	}
	if p.lifeline != nil {
		_ = p.lifeline.Close()
		p.lifeline = nil
	}
	_ = os.RemoveAll(p.sockets)
}

// failure wraps err with the executable, the step and its last stderr
// lines, or says there were none.
func (p *process) failure(step string, err error) error {
	if s, ok := status.FromError(err); ok {
		switch s.Code() {
		case codes.Unavailable:
			how := s.Message()
			if exit := p.log.exited(); exit != "" {
				how = exit
			}
			err = fmt.Errorf("the plugin process is gone (%s)", how)
		case codes.FailedPrecondition: // the plugin's error wrapped ErrFatal
			err = Fatal(errors.New(s.Message()))
		case codes.Unknown, codes.Internal, codes.InvalidArgument:
			err = errors.New(s.Message())
		}
	}
	lines := p.stderr.Lines()
	if len(lines) == 0 {
		return pluginError(p.path, fmt.Errorf("%s: %w; it wrote nothing on stderr", step, err))
	}
	return pluginError(p.path, fmt.Errorf("%s: %w; its last lines on stderr:\n  %s", step, err, strings.Join(lines, "\n  ")))
}

// describePlugin starts the executable, asks for its description and stops it.
func describePlugin(ctx context.Context, path string, log hclog.Logger) (*pluginpb.Description, error) {
	p, err := startPlugin(path, log)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	ctx, cancel, within := callContext(ctx)
	defer cancel()
	d, err := pluginpb.NewComponentClient(p.conn).Describe(ctx, &pluginpb.DescribeRequest{})
	if err != nil {
		return nil, p.failure("describe", timedOut(err, within))
	}
	return d, nil
}

// Plugin is the host's side of an out-of-process component: it runs the
// lifecycle over gRPC and owns the process between Open and Close. A
// framework that takes plugins (FrameworkSpec.Plugin) embeds it in a
// component of its own, which speaks the framework's service over Conn.
type Plugin struct {
	path string
	desc *pluginpb.Description

	mu   sync.Mutex
	proc *process
	log  hclog.Logger
	dead error // the first failure after Open
}

// Path is the plugin's executable.
func (p *Plugin) Path() string { return p.path }

// RegisterParams registers the parameters the plugin described.
func (p *Plugin) RegisterParams(r *params.Registrar) error {
	for _, d := range p.desc.GetParams() {
		def, err := paramDef(d)
		if err != nil {
			return pluginError(p.path, fmt.Errorf("describe: %w", err))
		}
		if err := r.Define(def); err != nil {
			return err
		}
	}
	return nil
}

// Open starts the process and hands it its parameters.
func (p *Plugin) Open(ctx context.Context, env *Env) error {
	proc, err := startPlugin(p.path, env.Logger)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.proc, p.log = proc, env.Logger
	p.mu.Unlock()
	values := map[string]string{}
	for _, d := range p.desc.GetParams() {
		if v, ok := env.Params.Lookup(d.GetName()); ok {
			values[d.GetName()] = v.Raw
		}
	}
	ctx, cancel, within := callContext(ctx)
	defer cancel()
	out, err := pluginpb.NewComponentClient(proc.conn).Open(ctx, &pluginpb.OpenRequest{
		Params: values, Priority: int32(env.Priority), Requested: env.Requested,
	})
	if err != nil {
		return p.fail("open", timedOut(err, within), false)
	}
	return outcomeErr(out)
}

// Query asks the plugin whether it runs, and at which priority.
func (p *Plugin) Query(ctx context.Context, env *Env) (int, error) {
	conn := p.Conn()
	if conn == nil {
		return 0, pluginError(p.path, errors.New("query before open"))
	}
	ctx, cancel, within := callContext(ctx)
	defer cancel()
	out, err := pluginpb.NewComponentClient(conn).Query(ctx, &pluginpb.QueryRequest{Priority: int32(env.Priority)})
	if err != nil {
		return 0, p.fail("query", timedOut(err, within), false)
	}
	if err := outcomeErr(out); err != nil {
		return 0, err
	}
	return int(out.GetPriority()), nil
}

// Close asks the plugin to close and stops its process. A plugin that has
// already died is not asked.
func (p *Plugin) Close() error {
	p.mu.Lock()
	proc, dead := p.proc, p.dead
	p.proc = nil
	p.mu.Unlock()
	if proc == nil {
		return nil
	}
	defer proc.stop()
	if dead != nil {
		return nil // reported when it happened
	}
	ctx, cancel, within := callContext(context.Background())
	defer cancel()
	if _, err := pluginpb.NewComponentClient(proc.conn).Close(ctx, &pluginpb.CloseRequest{}); err != nil {
		return proc.failure("close", timedOut(err, within))
	}
	return nil
}

// Conn is the connection to the running plugin, nil outside Open..Close.
func (p *Plugin) Conn() *grpc.ClientConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proc == nil {
		return nil
	}
	return p.proc.conn
}

// Fail records that a call to the plugin failed and returns the error,
// naming the executable and carrying its last stderr lines. The first
// failure is logged; a framework that can go on without the plugin stops
// calling it once Dead reports an error.
func (p *Plugin) Fail(step string, err error) error { return p.fail(step, err, true) }

// fail is Fail; Open and Query pass logFirst false, for the framework
// reports their failures.
func (p *Plugin) fail(step string, err error, logFirst bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proc == nil {
		return pluginError(p.path, fmt.Errorf("%s: %w", step, err))
	}
	if status.Code(err) == codes.Unavailable {
		// The process is gone or going: stopping it waits until its last
		// words on stderr are read, so the report carries them.
		p.proc.stop()
	}
	err = p.proc.failure(step, err)
	if p.dead == nil {
		p.dead = err
		if logFirst && p.log != nil {
			p.log.Error("out-of-process component failed", "path", p.path, "step", step, "error", err)
		}
	}
	return err
}

// pid is the running plugin's process id, 0 when none runs.
func (p *Plugin) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proc == nil {
		return 0
	}
	return p.proc.pid
}

// Dead returns the plugin's first failure after Open, or nil.
func (p *Plugin) Dead() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dead
}

func outcomeErr(o *pluginpb.Outcome) error {
	if o.GetDeclined() {
		return fmt.Errorf("%w: %s", ErrDeclined, o.GetReason())
	}
	return nil
}

// paramDef turns a described parameter into a definition. The plugin's
// own validation runs in the plugin, at Open.
func paramDef(p *pluginpb.Param) (params.Def, error) {
	kind, ok := params.ParseKind(p.GetKind())
	if !ok {
		return params.Def{}, fmt.Errorf("parameter %s has the unknown kind %q", p.GetName(), p.GetKind())
	}
	d := params.Def{
		Name: p.GetName(), Kind: kind, Default: p.GetDefault(), Help: p.GetHelp(), Level: int(p.GetLevel()),
		Synonyms: p.GetSynonyms(), Deprecated: p.GetDeprecated(), Accepts: p.GetAccepts(),
	}
	for _, v := range p.GetValues() {
		d.Values = append(d.Values, params.EnumValue{Name: v.GetName(), Help: v.GetHelp()})
	}
	return d, nil
}

// tail keeps the last lines written to it.
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
	part  []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, b...)
	for {
		i := strings.IndexByte(string(t.part), '\n')
		if i < 0 {
			break
		}
		t.add(string(t.part[:i]))
		t.part = t.part[i+1:]
	}
	return len(b), nil
}

func (t *tail) add(line string) {
	if line = strings.TrimSpace(line); line == "" {
		return
	}
	// A record of the plugin's hclog JSON logger reads better as text.
	var rec struct {
		Level   string `json:"@level"`
		Message string `json:"@message"`
	}
	if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &rec) == nil && rec.Message != "" {
		if rec.Level == "debug" && rec.Message == "plugin address" {
			return // go-plugin's own record of its socket, which says nothing of the plugin
		}
		line = "[" + strings.ToUpper(rec.Level) + "] " + rec.Message
	}
	if len(t.lines) == t.max {
		t.lines = t.lines[1:]
	}
	t.lines = append(t.lines, line)
}

// Lines returns the last lines, with a partial last line.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.lines...)
	if s := strings.TrimSpace(string(t.part)); s != "" {
		out = append(out, s)
	}
	return out
}

// hostLog is the logger go-plugin gets. go-plugin logs the plugin's exit
// status, and re-logs a Go panic of the plugin as an error record per
// line; the failure's report carries both, so they are logged at debug
// level instead.
type hostLog struct {
	hclog.Logger
	mu   sync.Mutex
	exit string // how the process ended, once it has
}

func (l *hostLog) Error(msg string, args ...any) {
	if msg != "plugin process exited" {
		l.Logger.Error(msg, args...)
		return
	}
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == "error" {
			l.mu.Lock()
			l.exit = fmt.Sprint(args[i+1])
			l.mu.Unlock()
		}
	}
	l.Logger.Debug(msg, args...)
}

// exited is how the process ended ("exit status 2"), or "" if not known.
func (l *hostLog) exited() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.exit
}

// Named is the logger of the plugin's stderr lines.
func (l *hostLog) Named(name string) hclog.Logger { return &stderrLog{Logger: l.Logger.Named(name)} }

// stderrLog demotes the lines of a panic: go-plugin logs each as an error
// without fields, from the first "panic: " or "fatal error: " line on.
type stderrLog struct {
	hclog.Logger
	inPanic atomic.Bool
}

func (l *stderrLog) Error(msg string, args ...any) {
	if len(args) == 0 && (strings.HasPrefix(msg, "panic: ") || strings.HasPrefix(msg, "fatal error: ")) {
		l.inPanic.Store(true)
	}
	if len(args) == 0 && l.inPanic.Load() {
		l.Logger.Debug(msg)
		return
	}
	l.Logger.Error(msg, args...)
}

// pluginOutput logs what a plugin writes to its own os.Stdout and
// os.Stderr after the handshake (go-plugin carries it over gRPC), one line
// per record; stderr also goes to the tail of the failure reports.
type pluginOutput struct {
	log    hclog.Logger
	stream string
	tail   *tail
}

func (o pluginOutput) Write(b []byte) (int, error) {
	if o.tail != nil {
		_, _ = o.tail.Write(b)
	}
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line != "" {
			o.log.Info("plugin output", "stream", o.stream, "line", line)
		}
	}
	return len(b), nil
}

// pluginName splits an executable's base name mca_<framework>_<component>.
func pluginName(path string) (framework, name string, ok bool) {
	base := filepath.Base(path)
	rest, found := strings.CutPrefix(base, "mca_")
	if !found {
		return "", "", false
	}
	framework, name, found = strings.Cut(rest, "_")
	if !found || !frameworkName.MatchString(framework) || !componentName.MatchString(name) || name == "base" {
		return "", "", false
	}
	return framework, name, true
}
