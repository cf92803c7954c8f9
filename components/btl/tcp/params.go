package tcp

import (
	"fmt"
	"math"
	"time"

	"github.com/gompi/gompi/frameworks/btl"
	"github.com/gompi/gompi/params"
)

// paramSet holds the handles of the component's parameters.
type paramSet struct {
	ifInclude, ifExclude params.Param[[]string]
	eagerLimit, maxSend  params.Param[int64]
	coalesceLimit        params.Param[int64]
	sndbuf, rcvbuf       params.Param[int64]
	congestion           params.Param[string]
	exclusivity          params.Param[int]
	bandwidth            params.Param[int]
	handshakeTimeout     params.Param[float64]
	maxPendingHandshakes params.Param[int]
}

// config is the component's resolved configuration.
type config struct {
	ifInclude, ifExclude []string
	eagerLimit, maxSend  int
	coalesceLimit        int
	sndbuf, rcvbuf       int
	congestion           string
	exclusivity          int
	bandwidth            int
	handshakeTimeout     time.Duration
	maxPendingHandshakes int
}

const ifaceListAccepts = "a comma-separated list of interface names and CIDR subnets"

func register(r *params.Registrar) paramSet {
	return paramSet{
		ifInclude: r.List(params.Spec{
			Name:  "if_include",
			Level: 1,
			Help: "Network interfaces to use, comma-separated: interface names (eth0) or IPv4/IPv6 " +
				"subnets in CIDR notation (10.0.0.0/8, fd00::/64). Empty uses every interface that is up, " +
				"loopback included. Mutually exclusive with btl_tcp_if_exclude.",
			Validate: checkIfaceList,
			Accepts:  ifaceListAccepts,
			Excludes: []string{"btl_tcp_if_exclude"},
		}),
		ifExclude: r.List(params.Spec{
			Name:  "if_exclude",
			Level: 1,
			Help: "Network interfaces not to use, comma-separated, in the form of btl_tcp_if_include; " +
				"every other interface that is up is used. Mutually exclusive with btl_tcp_if_include.",
			Validate: checkIfaceList,
			Accepts:  ifaceListAccepts,
		}),
		eagerLimit: r.Size(params.Spec{
			Name:    "eager_limit",
			Default: "128k",
			Level:   4,
			Help:    "Largest message, in bytes, sent in one fragment without a rendezvous.",
			Range:   params.SizeIn(1, maxPayload),
		}),
		maxSend: r.Size(params.Spec{
			Name:    "max_send_size",
			Default: "4m",
			Level:   4,
			Help: "Largest payload, in bytes, of one fragment of a long message. Over a connection whose " +
				"congestion control paces the sender (bbr), at most 128 KiB: there smaller fragments moved " +
				"1 MiB messages 1.4-1.8 times faster between hosts.",
			Range: params.SizeIn(1, maxPayload),
		}),
		coalesceLimit: r.Size(params.Spec{
			Name:    "coalesce_limit",
			Default: "8k",
			Level:   4,
			Help: "Largest payload, in bytes, of a non-blocking send that may be held back and written " +
				"with the fragments that follow in one system call. Held fragments go out at the " +
				"rank's next poll, wait or send to that peer, or from a flusher goroutine 100 microseconds later. " +
				"0 writes every fragment at once.",
			Range: params.SizeIn(0, stageCap-frameHeaderSize-btl.MaxHeaderSize),
		}),
		exclusivity: r.Int(params.Spec{
			Name:    "exclusivity",
			Default: "100",
			Level:   7,
			Help: "Rank of tcp among the transports that reach a peer: the reachable one with the " +
				"highest exclusivity carries its traffic (self uses 65536, sm 65535).",
			Range: params.IntIn(0, math.MaxInt32),
		}),
		bandwidth: r.Int(params.Spec{
			Name:    "bandwidth",
			Default: "10000",
			Level:   5,
			Help:    "Bandwidth of the tcp transport in Mbit/s, used to choose between transports of equal exclusivity.",
			Range:   params.IntIn(0, math.MaxInt32),
		}),
		handshakeTimeout: r.Float(params.Spec{
			Name:    "handshake_timeout",
			Default: "5",
			Level:   5,
			Help: "Seconds allowed to connect to a peer and to authenticate a connection; " +
				"a stranger that stays silent is dropped after this long.",
			Range: params.FloatAbove(0, 3600).Unit("seconds"),
		}),
		maxPendingHandshakes: r.Int(params.Spec{
			Name:    "max_pending_handshakes",
			Default: "1024",
			Level:   5,
			Help: "Most incoming connections authenticating at once; each costs a socket and a small goroutine " +
				"until it authenticates or is dropped. Past the limit, the connection silent the longest (one " +
				"that has not begun the handshake) is dropped for the newcomer, and real peers, which begin at " +
				"once, still get in; when every slot holds a peer that has begun, the newcomer waits, which takes " +
				"a round trip. So the limit bounds a flood of strangers without refusing the peers of a job of " +
				"any size: 1024 handshakes in flight accept thousands of peers a second.",
			Range: params.IntIn(1, 1<<20),
		}),
		sndbuf: r.Size(params.Spec{
			Name:    "sndbuf",
			Default: "0",
			Level:   5,
			Help:    "Socket send buffer size in bytes; 0 keeps the operating system's default.",
			Range:   params.SizeIn(0, math.MaxInt32),
		}),
		congestion: r.String(params.Spec{
			Name:    "congestion",
			Default: congestionAuto,
			Level:   5,
			Help: "TCP congestion control of the connections: auto gives connections between two ranks of one " +
				"host reno, whose window is not paced (on one host nothing queues, and pacing algorithms such as " +
				"bbr halved loopback bandwidth), and leaves connections between hosts the system's algorithm; " +
				"system leaves every connection the system's (net.ipv4.tcp_congestion_control); any other " +
				"value names the algorithm for every connection, which the kernel must let this process choose " +
				"(net.ipv4.tcp_allowed_congestion_control).",
			Validate: validCongestion,
			Accepts: fmt.Sprintf("%s, %s, or an algorithm's name (lower-case letters, digits and _, at most %d)",
				congestionAuto, congestionSystem, maxAlgoName),
		}),
		rcvbuf: r.Size(params.Spec{
			Name:    "rcvbuf",
			Default: "0",
			Level:   5,
			Help:    "Socket receive buffer size in bytes; 0 keeps the operating system's default.",
			Range:   params.SizeIn(0, math.MaxInt32),
		}),
	}
}

func (p *paramSet) resolve(s *params.Snapshot) config {
	return config{
		ifInclude:        p.ifInclude.Get(s),
		ifExclude:        p.ifExclude.Get(s),
		eagerLimit:       int(p.eagerLimit.Get(s)),
		maxSend:          int(p.maxSend.Get(s)),
		coalesceLimit:    int(p.coalesceLimit.Get(s)),
		sndbuf:           int(p.sndbuf.Get(s)),
		rcvbuf:           int(p.rcvbuf.Get(s)),
		congestion:       p.congestion.Get(s),
		exclusivity:      p.exclusivity.Get(s),
		bandwidth:        p.bandwidth.Get(s),
		handshakeTimeout: time.Duration(p.handshakeTimeout.Get(s) * float64(time.Second)),

		maxPendingHandshakes: p.maxPendingHandshakes.Get(s),
	}
}
