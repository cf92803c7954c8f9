package tcp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"syscall"
)

// Handshake: every connection is authenticated both ways before any frame
// is read. The dialer D connects to the acceptor A:
//
//	D → A  Hello      D's rank, A's rank, nonce nd
//	A → D  Challenge  A's rank, D's rank, nonce na, MAC("acceptor", nd, na)
//	D → A  Proof      MAC("dialer", nd, na)
//	A → D  Verdict    accept, yield or refuse, MAC("verdict", nd, na, code)
//
// Each MAC is HMAC-SHA256 keyed with the job's secret over a role label, the
// job id and both ranks besides the nonces, so a proof cannot be replayed in
// another role, job, pair of ranks or connection. Every message starts with
// an 8-byte prefix, little-endian: magic "GMPH" (uint32), version (uint8),
// type (uint8), two zero bytes. After the prefix:
//
//	Hello      from uint32, to uint32, nonce [32]byte              (48 bytes)
//	Challenge  from uint32, to uint32, nonce [32]byte, mac [32]byte (80 bytes)
//	Proof      mac [32]byte                                         (40 bytes)
//	Verdict    code uint32, zero uint32, mac [32]byte               (48 bytes)
const (
	handshakeMagic   = 0x48504d47 // "GMPH" read as little-endian bytes
	handshakeVersion = 1
	nonceSize        = 32
	handshakePrefix  = 8
	maxHandshakeSize = 80
)

// handshakeType is the type of a handshake message.
type handshakeType uint8

// The handshake messages, in the order they are sent.
const (
	msgHello handshakeType = iota + 1
	msgChallenge
	msgProof
	msgVerdict
)

// verdictCode is the acceptor's decision on an authenticated connection.
type verdictCode uint32

// The verdicts.
const (
	// verdictAccept: the connection carries the pair's frames.
	verdictAccept verdictCode = iota + 1
	// verdictYield: the acceptor is dialing too and its connection wins (or
	// the pair is already connected); the dialer waits for it.
	verdictYield
	// verdictRefuse: the acceptor is finalizing or considers the dialer failed.
	verdictRefuse
)

func (v verdictCode) String() string {
	switch v {
	case verdictAccept:
		return "accept"
	case verdictYield:
		return "yield"
	case verdictRefuse:
		return "refuse"
	}
	return fmt.Sprintf("verdict(%d)", uint32(v))
}

// errHandshake marks a handshake message that does not decode or a peer
// that failed authentication.
var errHandshake = errors.New("handshake failed")

// errNoChallenge marks a dial the listener hung up on before its challenge.
var errNoChallenge = errors.New("the listener hung up before its challenge")

// errForeign marks bytes that are not this protocol at all (wrong magic or
// version), as opposed to a gompi handshake that fails; it comes with errHandshake.
var errForeign = errors.New("not the gompi tcp protocol")

// checkHelloPrefix checks that b, the first handshakePrefix bytes a dialer
// sent, start a Hello: the proof that a connection speaks the protocol
// before anything sizable is spent on it. Errors wrap errHandshake.
func checkHelloPrefix(b []byte) error {
	if err := checkPrefix(b); err != nil {
		return err
	}
	if t := handshakeType(b[5]); t != msgHello || b[6] != 0 || b[7] != 0 {
		return fmt.Errorf("%w: the first message is not a hello", errHandshake)
	}
	return nil
}

// checkPrefix checks the magic and version of a message prefix.
func checkPrefix(b []byte) error {
	if len(b) < handshakePrefix {
		return fmt.Errorf("%w: %d-byte message", errHandshake, len(b))
	}
	if m := binary.LittleEndian.Uint32(b); m != handshakeMagic {
		return fmt.Errorf("%w: %w: bad magic %#08x", errHandshake, errForeign, m)
	}
	if v := b[4]; v != handshakeVersion {
		return fmt.Errorf("%w: %w: version %d, want %d", errHandshake, errForeign, v, handshakeVersion)
	}
	return nil
}

// handshakeMsg is a decoded handshake message. Fields a type does not carry
// are zero.
type handshakeMsg struct {
	Type     handshakeType
	From, To int             // Hello, Challenge: sender's and receiver's ranks
	Nonce    [nonceSize]byte // Hello, Challenge
	MAC      [sha256.Size]byte
	Verdict  verdictCode // msgVerdict
}

// handshakeSize returns the encoded size of a message of type t, or 0 for
// an unknown type.
func handshakeSize(t handshakeType) int {
	switch t {
	case msgHello:
		return handshakePrefix + 8 + nonceSize
	case msgChallenge:
		return handshakePrefix + 8 + nonceSize + sha256.Size
	case msgProof:
		return handshakePrefix + sha256.Size
	case msgVerdict:
		return handshakePrefix + 8 + sha256.Size
	}
	return 0
}

// decodeHandshake decodes one handshake message, which must fill b exactly.
// Errors wrap errHandshake.
func decodeHandshake(b []byte) (handshakeMsg, error) {
	if err := checkPrefix(b); err != nil {
		return handshakeMsg{}, err
	}
	m := handshakeMsg{Type: handshakeType(b[5])}
	size := handshakeSize(m.Type)
	switch {
	case size == 0:
		return handshakeMsg{}, fmt.Errorf("%w: unknown message type %d", errHandshake, b[5])
	case len(b) != size:
		return handshakeMsg{}, fmt.Errorf("%w: message type %d of %d bytes, want %d", errHandshake, m.Type, len(b), size)
	case b[6] != 0 || b[7] != 0:
		return handshakeMsg{}, fmt.Errorf("%w: reserved bytes set", errHandshake)
	}
	body := b[handshakePrefix:]
	switch m.Type {
	case msgHello, msgChallenge:
		from, to := binary.LittleEndian.Uint32(body), binary.LittleEndian.Uint32(body[4:])
		if from > math.MaxInt32 || to > math.MaxInt32 {
			return handshakeMsg{}, fmt.Errorf("%w: rank out of range", errHandshake)
		}
		m.From, m.To = int(from), int(to)
		copy(m.Nonce[:], body[8:])
		if m.Type == msgChallenge {
			copy(m.MAC[:], body[8+nonceSize:])
		}
	case msgProof:
		copy(m.MAC[:], body)
	case msgVerdict:
		m.Verdict = verdictCode(binary.LittleEndian.Uint32(body))
		if m.Verdict < verdictAccept || m.Verdict > verdictRefuse || binary.LittleEndian.Uint32(body[4:]) != 0 {
			return handshakeMsg{}, fmt.Errorf("%w: bad verdict %d", errHandshake, m.Verdict)
		}
		copy(m.MAC[:], body[8:])
	}
	return m, nil
}

// Append appends the encoding of m to b. From and To must be 0 to MaxInt32.
func (m handshakeMsg) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, handshakeMagic)
	b = append(b, handshakeVersion, byte(m.Type), 0, 0)
	switch m.Type {
	case msgHello, msgChallenge:
		b = binary.LittleEndian.AppendUint32(b, uint32(m.From))
		b = binary.LittleEndian.AppendUint32(b, uint32(m.To))
		b = append(b, m.Nonce[:]...)
		if m.Type == msgChallenge {
			b = append(b, m.MAC[:]...)
		}
	case msgProof:
		b = append(b, m.MAC[:]...)
	case msgVerdict:
		b = binary.LittleEndian.AppendUint32(b, uint32(m.Verdict))
		b = binary.LittleEndian.AppendUint32(b, 0)
		b = append(b, m.MAC[:]...)
	}
	return b
}

// authority runs handshakes for one rank of one job.
type authority struct {
	secret     []byte
	job        string
	rank, size int
}

// session is what both sides of one handshake share.
type session struct {
	dialer, acceptor int
	nd, na           [nonceSize]byte
}

// MAC role labels: distinct, so no proof is valid in another role.
const (
	roleAcceptor = "gompi btl tcp v1 acceptor"
	roleDialer   = "gompi btl tcp v1 dialer"
	roleVerdict  = "gompi btl tcp v1 verdict"
)

func (a *authority) mac(role string, s *session, v verdictCode) [sha256.Size]byte {
	h := hmac.New(sha256.New, a.secret)
	var b []byte
	b = append(b, role...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.job)))
	b = append(b, a.job...)
	b = binary.LittleEndian.AppendUint32(b, uint32(s.dialer))
	b = binary.LittleEndian.AppendUint32(b, uint32(s.acceptor))
	b = append(b, s.nd[:]...)
	b = append(b, s.na[:]...)
	if role == roleVerdict {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	h.Write(b)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// dial runs the dialer's side with rank peer and returns its verdict. The
// caller bounds it with a deadline on the connection.
func (a *authority) dial(r io.Reader, w io.Writer, peer int) (verdictCode, error) {
	s := session{dialer: a.rank, acceptor: peer}
	rand.Read(s.nd[:])
	err := writeMsg(w, handshakeMsg{Type: msgHello, From: a.rank, To: peer, Nonce: s.nd})
	if hungUp(err) {
		return 0, fmt.Errorf("%w: %w", errNoChallenge, err)
	}
	if err != nil {
		return 0, err
	}
	ch, err := readMsg(r, nil, msgChallenge)
	if hungUp(err) {
		return 0, fmt.Errorf("%w: %w", errNoChallenge, err)
	}
	if err != nil {
		return 0, err
	}
	if ch.From != peer || ch.To != a.rank {
		return 0, fmt.Errorf("%w: challenge from world rank %d to world rank %d, want %d to %d", errHandshake, ch.From, ch.To, peer, a.rank)
	}
	s.na = ch.Nonce
	if want := a.mac(roleAcceptor, &s, 0); !hmac.Equal(ch.MAC[:], want[:]) {
		return 0, fmt.Errorf("%w: world rank %d's proof does not match this job's secret", errHandshake, peer)
	}
	if err := writeMsg(w, handshakeMsg{Type: msgProof, MAC: a.mac(roleDialer, &s, 0)}); err != nil {
		return 0, err
	}
	vm, err := readMsg(r, nil, msgVerdict)
	if err != nil {
		return 0, err
	}
	if want := a.mac(roleVerdict, &s, vm.Verdict); !hmac.Equal(vm.MAC[:], want[:]) {
		return 0, fmt.Errorf("%w: world rank %d's verdict is not authentic", errHandshake, peer)
	}
	return vm.Verdict, nil
}

// accept runs the acceptor's side up to the verdict: it returns the session
// of an authenticated dialer, whose rank is s.dialer. prefix holds the bytes
// of the hello already read, if any.
func (a *authority) accept(prefix []byte, r io.Reader, w io.Writer) (session, error) {
	h, err := readMsg(r, prefix, msgHello)
	if err != nil {
		return session{}, err
	}
	if h.To != a.rank || h.From >= a.size {
		return session{}, fmt.Errorf("%w: hello from world rank %d to world rank %d, but this is world rank %d of %d", errHandshake, h.From, h.To, a.rank, a.size)
	}
	s := session{dialer: h.From, acceptor: a.rank, nd: h.Nonce}
	rand.Read(s.na[:])
	if err := writeMsg(w, handshakeMsg{Type: msgChallenge, From: a.rank, To: h.From, Nonce: s.na, MAC: a.mac(roleAcceptor, &s, 0)}); err != nil {
		return session{}, err
	}
	p, err := readMsg(r, nil, msgProof)
	if err != nil {
		return session{}, err
	}
	if want := a.mac(roleDialer, &s, 0); !hmac.Equal(p.MAC[:], want[:]) {
		return session{}, fmt.Errorf("%w: the dialer claiming world rank %d does not know this job's secret", errHandshake, h.From)
	}
	return s, nil
}

// verdict sends the acceptor's decision on an authenticated session.
func (a *authority) verdict(w io.Writer, s *session, v verdictCode) error {
	return writeMsg(w, handshakeMsg{Type: msgVerdict, Verdict: v, MAC: a.mac(roleVerdict, s, v)})
}

// hungUp reports whether err says the other side closed or reset the connection.
func hungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func writeMsg(w io.Writer, m handshakeMsg) error {
	var buf [maxHandshakeSize]byte
	if _, err := w.Write(m.Append(buf[:0])); err != nil {
		return fmt.Errorf("send handshake: %w", err)
	}
	return nil
}

// readMsg reads exactly one message of type t, whose first bytes, already
// read, are prefix: a stranger's junk costs at most maxHandshakeSize bytes,
// and nothing past the message leaves the socket.
func readMsg(r io.Reader, prefix []byte, t handshakeType) (handshakeMsg, error) {
	var buf [maxHandshakeSize]byte
	b := buf[:handshakeSize(t)]
	n := copy(b, prefix)
	if _, err := io.ReadFull(r, b[n:]); err != nil {
		return handshakeMsg{}, fmt.Errorf("read handshake: %w", err)
	}
	m, err := decodeHandshake(b)
	if err != nil {
		return handshakeMsg{}, err
	}
	if m.Type != t {
		return handshakeMsg{}, fmt.Errorf("%w: got message type %d, want %d", errHandshake, m.Type, t)
	}
	return m, nil
}
