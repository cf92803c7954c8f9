package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// info is the component's identity; tests build it with info.Instantiate.
var info = btl.Info("tcp", mca.Version{Major: 1}, 20, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the tcp btl component.
type Component struct {
	btl.BaseComponent

	params           paramSet
	cfg              config
	include, exclude ifaceFilter
	log              hclog.Logger
	opened           bool
	declined         string // why Init returned no module
}

// RegisterParams registers the btl_tcp_* parameters.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.params = register(r)
	return nil
}

// Open reads the parameters and checks the interface lists against the
// machine's interfaces: a mistake there is fatal, not a silent fallback.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.log = env.Logger
	if c.log == nil {
		c.log = hclog.NewNullLogger()
	}
	cfg := c.params.resolve(env.Params) // the registry refused both lists set together
	if len(cfg.ifInclude) > 0 || len(cfg.ifExclude) > 0 {
		ifaces, err := systemIfaces()
		if err != nil {
			return err
		}
		if c.include, err = parseFilter(c.params.ifInclude.Name(), cfg.ifInclude, ifaces); err != nil {
			return mca.Fatal(err)
		}
		if c.exclude, err = parseFilter(c.params.ifExclude.Name(), cfg.ifExclude, ifaces); err != nil {
			return mca.Fatal(err)
		}
	}
	if a := cfg.congestion; a != congestionAuto && a != congestionSystem {
		if err := checkCongestion(c.params.congestion.Name(), a); err != nil {
			return mca.Fatal(err)
		}
	}
	c.cfg = cfg
	c.opened = true
	return nil
}

// Declined says why Init returned no module.
func (c *Component) Declined() string { return c.declined }

var _ btl.Decliner = (*Component)(nil)

// noAddrs says why selectAddrs chose no address of ifaces.
func (c *Component) noAddrs(ifaces []netIface) string {
	have := "; this machine has " + describeIfaces(ifaces)
	switch {
	case len(c.cfg.ifInclude) > 0:
		return fmt.Sprintf("no interface that is up matches %s %s%s",
			c.params.ifInclude.Name(), strings.Join(c.cfg.ifInclude, ","), have)
	case len(c.cfg.ifExclude) > 0:
		return fmt.Sprintf("%s %s leaves no interface that is up%s",
			c.params.ifExclude.Name(), strings.Join(c.cfg.ifExclude, ","), have)
	}
	return "no interface that is up has a usable address" + have
}

// Init listens on the chosen addresses, publishes them and returns the
// module. With no usable interface it returns no module.
func (c *Component) Init(ctx context.Context, env btl.InitEnv) ([]btl.Module, error) {
	switch {
	case !c.opened:
		return nil, errors.New("called before Open")
	case env.Size < 1 || env.Rank < 0 || env.Rank >= env.Size:
		return nil, fmt.Errorf("world rank %d of a job of size %d", env.Rank, env.Size)
	case env.Modex == nil || env.Receiver == nil:
		return nil, errors.New("no modex or receiver in the environment")
	case len(env.Secret) == 0 && env.Size > 1:
		return nil, errors.New("the job has no secret, so connections could not be authenticated")
	}
	ifaces, err := systemIfaces()
	if err != nil {
		return nil, err
	}
	local := selectAddrs(ifaces, c.include, c.exclude)
	if len(local) == 0 {
		c.log.Info("no usable network interface; tcp is disabled",
			"if_include", c.cfg.ifInclude, "if_exclude", c.cfg.ifExclude, "interfaces", describeIfaces(ifaces))
		c.declined = c.noAddrs(ifaces)
		return nil, nil
	}
	host := env.Hostname
	if host == "" {
		if host, err = os.Hostname(); err != nil {
			return nil, fmt.Errorf("hostname: %w", err)
		}
	}
	m := newModule(c.cfg, env, host, c.log.With("rank", env.Rank))
	ep := endpoint{host: host}
	var lc net.ListenConfig
	var errs []error
	for _, la := range local {
		a := la.prefix.Addr()
		l, err := lc.Listen(ctx, "tcp", netip.AddrPortFrom(a, 0).String())
		if err != nil {
			m.log.Warn("cannot listen; skipping the address", "interface", la.iface, "address", a, "error", err)
			errs = append(errs, err)
			continue
		}
		m.listeners = append(m.listeners, l)
		m.local = append(m.local, la)
		ep.addrs = append(ep.addrs, la.prefix)
		ep.ports = append(ep.ports, uint16(l.Addr().(*net.TCPAddr).Port))
		m.log.Debug("listening", "interface", la.iface, "address", l.Addr())
	}
	if len(m.listeners) == 0 {
		m.shutdown(false)
		return nil, fmt.Errorf("cannot listen on any chosen address: %w", errors.Join(errs...))
	}
	for _, l := range m.listeners {
		m.spawn(func() { m.acceptLoop(l) })
	}
	if m.cfg.coalesceLimit > 0 {
		m.spawn(m.flusher)
	}
	b, err := ep.encode()
	if err == nil {
		err = env.Modex.Put(ctx, modexKey, b)
	}
	if err != nil {
		m.shutdown(false)
		return nil, fmt.Errorf("publish addresses: %w", err)
	}
	return []btl.Module{m}, nil
}

func newModule(cfg config, env btl.InitEnv, host string, log hclog.Logger) *Module {
	m := &Module{
		cfg:            cfg,
		rank:           env.Rank,
		size:           env.Size,
		host:           host,
		modex:          env.Modex,
		recv:           env.Receiver,
		log:            log,
		auth:           authority{secret: env.Secret, job: env.JobID, rank: env.Rank, size: env.Size},
		peers:          make([]peer, env.Size),
		pool:           newBufPool(max(cfg.maxSend, cfg.eagerLimit)),
		dialer:         net.Dialer{Timeout: cfg.handshakeTimeout},
		conns:          map[*conn]struct{}{},
		slots:          newSlots(cfg.maxPendingHandshakes),
		refused:        newRefusals(log, realClock{}),
		kick:           make(chan struct{}, 1),
		flushDelay:     flushDelay,
		pollGrace:      pollGrace,
		oversubscribed: env.Oversubscribed,
		ready:          newReadySet(),
	}
	m.placer, _ = env.Receiver.(btl.VectorPlacer)
	for i := range m.peers {
		m.peers[i].rank = i
	}
	if w, err := newWakers(); err != nil {
		log.Debug("sockets stay in Go's netpoller", "error", err)
	} else {
		m.wakers = w
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

var (
	_ btl.Component = (*Component)(nil)
	_ mca.Component = (*Component)(nil)
)
