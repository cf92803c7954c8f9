package sm

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gompi/gompi/components/common/shm"
	"github.com/gompi/gompi/params"
)

// paramSet holds the handles of the component's parameters.
type paramSet struct {
	backingDir       params.Param[string]
	eagerLimit       params.Param[int64]
	fragmentSize     params.Param[int64]
	ringSize         params.Param[int64]
	singleCopyMin    params.Param[int64]
	blockingCopyMin  params.Param[int64]
	blockingCopy     params.Param[string]
	sharedCopyMin    params.Param[int64]
	singleCopy       params.Param[string]
	exclusivity      params.Param[int]
	pollSpins        params.Param[int]
	livenessInterval params.Param[float64]
}

// config is the component's resolved configuration.
type config struct {
	backingDir      string
	eagerLimit      int
	fragmentSize    int
	ringSize        int
	singleCopyMin   int
	blockingCopyMin int
	blockingCopy    string // timed or stream
	sharedCopyMin   int
	singleCopy      string // auto, cma or none
	exclusivity     int
	pollSpins       int
	liveness        time.Duration
	backingSet      bool // the user chose the backing directory: falling back deserves a warning
}

// Limits of the ring and fragment sizes.
const (
	minRingSize = 16 << 10
	maxRingSize = 64 << 20
)

func register(r *params.Registrar) paramSet {
	return paramSet{
		backingDir: r.String(params.Spec{
			Name: "backing_directory", Default: "/dev/shm", Level: 3,
			Help: "Directory that holds the job's shared-memory segment on each host. The segment's name is " +
				"removed once every local rank has mapped it. Empty, or a directory that is not writable, " +
				"means the job's session directory.",
			Accepts:  shm.DirAccepts,
			Validate: shm.ValidDir,
		}),
		eagerLimit: r.Size(params.Spec{
			Name: "eager_limit", Default: "63k", Level: 4,
			Help: "Largest message, in bytes, copied into the receiver's ring at once; a larger one waits " +
				"for its receive (rendezvous). At most btl_sm_fragment_size; left at its default, it is lowered to " +
				"match a smaller btl_sm_fragment_size. Unless btl_sm_single_copy_mechanism " +
				"is none, a message of btl_sm_single_copy_threshold bytes or more waits for its receive even " +
				"below this limit, to be read by single copy where the kernel allows it.",
			Range: params.SizeIn(1, maxRingSize/4),
		}),
		fragmentSize: r.Size(params.Spec{
			Name: "fragment_size", Default: "63k", Level: 4,
			Help: fmt.Sprintf("Largest payload, in bytes, of one fragment in a ring: a large message that is not read "+
				"with a single copy streams through the ring in pieces of this size. At most a quarter of "+
				"btl_sm_ring_size less %d bytes of headers (%d with a 256k ring); left at its default, it is "+
				"lowered to fit a smaller ring.",
				recHeader+maxHeader, maxFragment(256<<10)),
			Range: params.SizeIn(64, maxRingSize/4),
		}),
		ringSize: r.Size(params.Spec{
			Name: "ring_size", Default: "256k", Level: 4,
			Help: fmt.Sprintf("Bytes of each ring that carries fragments from one rank to another on the same "+
				"host, a power of two from %d to %d. The segment holds a ring for every sender and receiver "+
				"among the local ranks, a rank and itself included. Below 256k, btl_sm_fragment_size and "+
				"btl_sm_eager_limit, where left at their defaults, are lowered to fit.",
				minRingSize, maxRingSize),
			Range: params.SizeIn(minRingSize, maxRingSize).PowersOfTwo(),
		}),
		singleCopyMin: r.Size(params.Spec{
			Name: "single_copy_threshold", Default: "63k", Level: 4,
			Help: "Smallest message, in bytes, that the receiver copies straight out of the sender's memory " +
				"(when a single-copy mechanism is available); smaller ones go through the ring. 0 disables single copy.",
			Range: params.SizeIn(0, math.MaxInt32),
		}),
		blockingCopyMin: r.Size(params.Spec{
			Name: "single_copy_blocking_threshold", Default: "0", Level: 5,
			Help: "Smallest message, in bytes, that a blocking send (Send, Ssend, a collective's blocking sends) " +
				"always has the receiver copy straight out of its memory, whatever btl_sm_single_copy_blocking " +
				"says; 0: none. Below btl_sm_single_copy_threshold it changes nothing.",
			Range: params.SizeIn(0, math.MaxInt32),
		}),
		blockingCopy: r.Enum(params.Spec{
			Name: "single_copy_blocking", Default: "timed", Level: 5,
			Help: "How a blocking send (Send, Ssend, a collective's blocking sends) of btl_sm_single_copy_threshold " +
				"bytes or more moves its payload while each rank on the host has a CPU: its sender can write it " +
				"into the ring in fragments while the receiver copies them out, since it waits anyway, or the " +
				"receiver can copy it straight out of the sender's memory. A non-blocking send always takes the " +
				"single copy, so that its receiver needs no help from a sender that computes; so does the send of " +
				"an exchange (Sendrecv, a collective's pairwise steps), where both CPUs copy, and every send " +
				"where ranks outnumber CPUs.",
			Values: []params.EnumValue{
				{Name: "timed", Help: "the way its receiver last timed faster for this sender and size (by powers of two); " +
					"now and then two sends go the other way to time it again, every 16th while untimed, at most " +
					"every 1024th where it is many times slower"},
				{Name: "stream", Help: "through the ring, below btl_sm_single_copy_blocking_threshold"},
			},
		}),
		sharedCopyMin: r.Size(params.Spec{
			Name: "shared_copy_threshold", Default: "256k", Level: 5,
			Help: "Smallest single-copy message whose sender copies part of it while the receiver copies the " +
				"rest, when each rank on the host has a CPU: the sender writes pieces from the end of the " +
				"message into the receiver's buffer as long as it polls. A sender that took no part in two such " +
				"copies in a row (busy with its own) is not asked for the next 16. 0 lets the receiver copy alone.",
			Range: params.SizeIn(0, math.MaxInt32),
		}),
		singleCopy: r.Enum(params.Spec{
			Name: "single_copy_mechanism", Default: "auto", Level: 3,
			Help: "How large messages move between local ranks in one copy.",
			Values: []params.EnumValue{
				{Name: "auto", Help: "cross-memory attach where the kernel allows it, else copy-in/copy-out through the ring"},
				{Name: "cma", Help: "cross-memory attach (process_vm_readv); a warning and copy-in/copy-out where the kernel refuses it"},
				{Name: "none", Help: "always copy-in/copy-out through the ring"},
			},
		}),
		exclusivity: r.Int(params.Spec{
			Name: "exclusivity", Default: "65535", Level: 7,
			Help: "Rank of sm among the transports that reach a peer: the reachable one with the highest " +
				"exclusivity carries its traffic (self uses 65536, tcp 100).",
			Range: params.IntIn(0, math.MaxInt32),
		}),
		pollSpins: r.Int(params.Spec{
			Name: "poll_spins", Default: "1000", Level: 5,
			Help: "Times a sender polls a full ring before it yields the CPU (at once when this host's ranks " +
				"outnumber its CPUs). While it waits it also drains its own rings, so two ranks filling each " +
				"other's rings never deadlock. A non-blocking send waits only while the receiver makes room: " +
				"after this many polls that find none made, it returns and goes from a later poll.",
			Range: params.IntIn(0, 1<<30),
		}),
		livenessInterval: r.Float(params.Spec{
			Name: "liveness_interval", Default: "0.1", Level: 5,
			Help: "Seconds between checks that the local peers still live, made whether this rank polls, sleeps " +
				"or waits for room in a ring: a peer that died is reported, so its survivors never hang.",
			Range: params.FloatIn(0.001, 60).Unit("seconds"),
		}),
	}
}

func (p *paramSet) resolve(s *params.Snapshot) config {
	c := config{
		backingDir:      p.backingDir.Get(s),
		eagerLimit:      int(p.eagerLimit.Get(s)),
		fragmentSize:    int(p.fragmentSize.Get(s)),
		ringSize:        int(p.ringSize.Get(s)),
		singleCopyMin:   int(p.singleCopyMin.Get(s)),
		blockingCopyMin: int(p.blockingCopyMin.Get(s)),
		blockingCopy:    p.blockingCopy.Get(s),
		sharedCopyMin:   int(p.sharedCopyMin.Get(s)),
		singleCopy:      p.singleCopy.Get(s),
		exclusivity:     p.exclusivity.Get(s),
		pollSpins:       p.pollSpins.Get(s),
		liveness:        time.Duration(p.livenessInterval.Get(s) * float64(time.Second)),
		backingSet:      s.IsSet(p.backingDir.Name()),
	}
	// The defaults suit the default ring; a smaller ring lowers those the
	// user left alone, so that setting btl_sm_ring_size alone is enough.
	if !s.IsSet(p.fragmentSize.Name()) {
		c.fragmentSize = min(c.fragmentSize, maxFragment(c.ringSize))
	}
	if !s.IsSet(p.eagerLimit.Name()) {
		c.eagerLimit = min(c.eagerLimit, c.fragmentSize)
	}
	return c
}

// maxFragment is the largest fragment size a ring of ringSize bytes takes.
func maxFragment(ringSize int) int { return ringSize/4 - recHeader - maxHeader }

// eager is the largest message sent at once: btl_sm_eager_limit, but
// below btl_sm_single_copy_threshold while single copy may be used. Both
// default to the largest fragment a 256 KiB ring takes, 63 KiB: a message
// sent at once beats a single-copy read, whose system call costs a few
// microseconds, up to there (a 32 KiB ping-pong 1.3 against 4.1 us one
// way, 48 KiB 1.8 against 5.2, bw at 32-60 KiB 2.5 times), and the ring
// allows no larger fragment.
func (c config) eager() int {
	if c.singleCopy != "none" && c.singleCopyMin > 0 {
		return min(c.eagerLimit, c.singleCopyMin-1)
	}
	return c.eagerLimit
}

// check validates what no single parameter can: their relations. Its
// errors say where each value came from.
func (c config) check(p *paramSet, s *params.Snapshot) error {
	var errs []error
	if c.eagerLimit > c.fragmentSize {
		errs = append(errs, fmt.Errorf("%s is larger than %s; a message sent at once must fit one fragment",
			setting(s, p.eagerLimit.Name(), c.eagerLimit), setting(s, p.fragmentSize.Name(), c.fragmentSize)))
	}
	if recordSize(maxHeader, c.fragmentSize) > c.ringSize/4 {
		errs = append(errs, fmt.Errorf("%s is too large for %s: a fragment with its headers may take at most "+
			"a quarter of a ring, so at most %d bytes here",
			setting(s, p.fragmentSize.Name(), c.fragmentSize), setting(s, p.ringSize.Name(), c.ringSize),
			maxFragment(c.ringSize)))
	}
	return errors.Join(errs...)
}

// setting is "name=value (source)" for an error: value is the one in
// use, which for a default may have been lowered to fit the ring.
func setting(s *params.Snapshot, name string, value int) string {
	v, _ := s.Lookup(name)
	src := v.Source.String()
	if n, ok := v.Parsed.(int64); ok && v.Source.Kind == params.SourceDefault && n != int64(value) {
		src += ", lowered to fit the ring"
	}
	return fmt.Sprintf("%s=%d (%s)", name, value, src)
}
