package sm

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/mca"
	"github.com/gompi/gompi/params"
)

// info is the component's identity; tests build it with info.Instantiate.
var info = btl.Info("sm", mca.Version{Major: 1}, 30, func() mca.Component { return &Component{} })

func init() { mca.Register(info) }

// Component is the sm btl component.
type Component struct {
	btl.BaseComponent

	params paramSet
	cfg    config
	log    hclog.Logger
	opened bool
}

// Declined says why Init returned no module: sm returns none only when
// no other rank of the job shares this host.
func (c *Component) Declined() string { return "no other rank of the job is on this host" }

// RegisterParams registers the btl_sm_* parameters.
func (c *Component) RegisterParams(r *params.Registrar) error {
	c.params = register(r)
	return nil
}

// CheckParams checks that the parameters agree with each other, for the
// framework before Open: gompirun refuses a bad combination before launch.
func (c *Component) CheckParams(s *params.Snapshot) error {
	return c.params.resolve(s).check(&c.params, s)
}

var _ mca.ParamChecker = (*Component)(nil)

// Open reads the parameters, which CheckParams has found to agree.
func (c *Component) Open(_ context.Context, env *mca.Env) error {
	c.log = env.Logger
	if c.log == nil {
		c.log = hclog.NewNullLogger()
	}
	c.cfg = c.params.resolve(env.Params)
	c.opened = true
	return nil
}

// Init returns the module when this rank shares its host with another
// rank of the job; the host's first local rank creates the segment.
func (c *Component) Init(ctx context.Context, env btl.InitEnv) ([]btl.Module, error) {
	switch {
	case !c.opened:
		return nil, errors.New("called before Open")
	case env.Modex == nil || env.Receiver == nil:
		return nil, errors.New("no modex or receiver in the environment")
	case env.LocalSize < 2:
		c.log.Debug("no other rank on this host; sm is disabled")
		return nil, nil
	case env.LocalRank < 0 || env.LocalRank >= env.LocalSize:
		return nil, fmt.Errorf("local rank %d of %d", env.LocalRank, env.LocalSize)
	}
	host := env.Hostname
	if host == "" {
		var err error
		if host, err = os.Hostname(); err != nil {
			return nil, fmt.Errorf("hostname: %w", err)
		}
	}
	m, err := newModule(c.cfg, env, host, c.log.With("rank", env.Rank))
	if err != nil {
		return nil, err
	}
	ep := endpoint{localRank: env.LocalRank, pid: os.Getpid(), probeAddr: m.probeAddr(), probeValue: m.probe[0]}
	if env.LocalRank == 0 {
		if ep.path, err = m.create(env); err != nil {
			return nil, err
		}
	}
	if err := env.Modex.Put(ctx, modexKey, ep.encode()); err != nil {
		err = errors.Join(err, m.Finalize())
		return nil, fmt.Errorf("publish the endpoint: %w", err)
	}
	return []btl.Module{m}, nil
}

// create makes the host's segment in the backing directory, or in the
// job's session directory when the backing directory refuses it.
func (m *Module) create(env btl.InitEnv) (string, error) {
	lay := newLayout(env.LocalSize, m.cfg.ringSize)
	dir := m.cfg.backingDir
	if dir == "" {
		dir = cmp.Or(env.SessionDir, os.TempDir())
	}
	path := segmentPath(dir, env.JobID)
	seg, err := createSegment(path, env.JobID, lay)
	if err != nil && env.SessionDir != "" && dir != env.SessionDir && shm.DirRefused(err) {
		log := m.log.Info
		if m.cfg.backingSet {
			log = m.log.Warn
		}
		log("backing directory unusable; using the session directory", "directory", m.cfg.backingDir, "error", err)
		path = segmentPath(env.SessionDir, env.JobID)
		seg, err = createSegment(path, env.JobID, lay)
	}
	if err != nil {
		return "", err
	}
	if env.KeepJobFile != nil {
		if err := env.KeepJobFile(path); err != nil {
			return "", errors.Join(fmt.Errorf("recording the segment %s for removal: %w", path, err), seg.unlink(), seg.retire())
		}
	}
	m.seg = seg
	m.log.Debug("segment created", "path", path, "bytes", lay.total, "local ranks", env.LocalSize)
	return path, nil
}

const modexKey = "btl.sm"

// endpoint is what a rank publishes: where it sits on its host, how its
// memory can be read, and, from the host's first rank, the segment's path.
type endpoint struct {
	localRank  int
	pid        int
	probeAddr  uint64 // a word whose value is probeValue, for peers to test cross-memory attach
	probeValue uint64
	path       string
}

const endpointVersion = 1

func (e endpoint) encode() []byte {
	b := make([]byte, 0, 27+len(e.path))
	b = append(b, endpointVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(e.localRank))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.pid))
	b = binary.LittleEndian.AppendUint64(b, e.probeAddr)
	b = binary.LittleEndian.AppendUint64(b, e.probeValue)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(e.path)))
	return append(b, e.path...)
}

func decodeEndpoint(b []byte) (endpoint, error) {
	if len(b) < 27 || b[0] != endpointVersion {
		return endpoint{}, fmt.Errorf("endpoint of %d bytes, version %d: want at least 27 bytes of version %d",
			len(b), firstByte(b), endpointVersion)
	}
	e := endpoint{
		localRank:  int(binary.LittleEndian.Uint32(b[1:])),
		pid:        int(binary.LittleEndian.Uint32(b[5:])),
		probeAddr:  binary.LittleEndian.Uint64(b[9:]),
		probeValue: binary.LittleEndian.Uint64(b[17:]),
	}
	n := int(binary.LittleEndian.Uint16(b[25:]))
	if len(b) != 27+n {
		return endpoint{}, fmt.Errorf("endpoint of %d bytes announces a path of %d", len(b), n)
	}
	e.path = string(b[27:])
	return e, nil
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

func randomWord() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails on Linux
	return binary.LittleEndian.Uint64(b[:]) | 1
}

var (
	_ btl.Component = (*Component)(nil)
	_ btl.Decliner  = (*Component)(nil)
)
