package prof

import (
	"context"
	"errors"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/prof/profpb"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
	"github.com/gompi/gompi/pmpi"
)

// pluginComponent is the host's side of an out-of-process profiling tool
// (an executable mca_prof_<name>). The *mca.Plugin runs the lifecycle
// over gRPC; its methods are one level shallower than those of the MCA
// base inside BaseComponent, so they win. Wrap returns the recording
// layer that streams every call to the tool.
type pluginComponent struct {
	BaseComponent
	*mca.Plugin

	batch, queue params.Param[int]
	cfg          streamConfig
	log          hclog.Logger
}

// streamConfig is how the layer batches events.
type streamConfig struct {
	batch int // events per batch
	queue int // full batches waiting for the sender before a call blocks
}

func newPluginComponent(p *mca.Plugin) mca.Component { return &pluginComponent{Plugin: p} }

// RegisterParams registers the tool's own parameters, as it described
// them, and the host's two for its event stream.
func (c *pluginComponent) RegisterParams(r *params.Registrar) error {
	if err := c.Plugin.RegisterParams(r); err != nil {
		return err
	}
	c.batch = r.Int(params.Spec{
		Name: "batch_events", Default: "1024", Level: 5,
		Help:  "Events the host sends to this out-of-process tool in one batch (one round trip).",
		Range: params.IntIn(1, 1<<20),
	})
	c.queue = r.Int(params.Spec{
		Name: "batch_queue", Default: "4", Level: 6,
		Help:  "Full batches that may wait for this out-of-process tool before MPI calls wait for it.",
		Range: params.IntIn(1, 1024),
	})
	return nil
}

// Open reads the stream's parameters and opens the plugin.
func (c *pluginComponent) Open(ctx context.Context, env *mca.Env) error {
	c.cfg = streamConfig{batch: c.batch.Get(env.Params), queue: c.queue.Get(env.Params)}
	c.log = env.Logger
	return c.Plugin.Open(ctx, env)
}

// Wrap returns the recording layer over next. Its clock starts here.
func (c *pluginComponent) Wrap(next pmpi.API) (pmpi.API, error) {
	conn := c.Conn()
	if conn == nil {
		return nil, errors.New("the plugin is not running")
	}
	return newRecorder(next, c.Plugin, profpb.NewToolClient(conn), c.cfg, c.log), nil
}

var _ Component = (*pluginComponent)(nil)
