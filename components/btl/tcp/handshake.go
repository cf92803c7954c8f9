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
	HandshakeMagic   = 0x48504d47 // "GMPH" read as little-endian bytes
	HandshakeVersion = 1
	NonceSize        = 32
	handshakePrefix  = 8
	maxHandshakeSize = 80
)

// HandshakeType is the type of a handshake message.
type HandshakeType uint8

// The handshake messages, in the order they are sent.
const (
	MsgHello HandshakeType = iota + 1
	MsgChallenge
	MsgProof
	MsgVerdict
)

// Verdict is the acceptor's decision on an authenticated connection.
type Verdict uint32

// The verdicts.
const (
	// VerdictAccept: the connection carries the pair's frames.
	VerdictAccept Verdict = iota + 1
	// VerdictYield: the acceptor is dialing too and its connection wins (or
	// the pair is already connected); the dialer waits for it.
	VerdictYield
	// VerdictRefuse: the acceptor is finalizing or considers the dialer failed.
	VerdictRefuse
)

func (v Verdict) String() string {
	switch v {
	case VerdictAccept:
		return "accept"
	case VerdictYield:
		return "yield"
	case VerdictRefuse:
		return "refuse"
	}
	return fmt.Sprintf("verdict(%d)", uint32(v))
}

// ErrHandshake marks a handshake message that does not decode or a peer
// that failed authentication.
var ErrHandshake = errors.New("btl tcp: handshake failed")

// HandshakeMsg is a decoded handshake message. Fields a type does not carry
// are zero.
type HandshakeMsg struct {
	Type     HandshakeType
	From, To int             // Hello, Challenge: sender's and receiver's ranks
	Nonce    [NonceSize]byte // Hello, Challenge
	MAC      [sha256.Size]byte
	Verdict  Verdict // Verdict
}

// HandshakeSize returns the encoded size of a message of type t, or 0 for
// an unknown type.
func HandshakeSize(t HandshakeType) int {
	switch t {
	case MsgHello:
		return handshakePrefix + 8 + NonceSize
	case MsgChallenge:
		return handshakePrefix + 8 + NonceSize + sha256.Size
	case MsgProof:
		return handshakePrefix + sha256.Size
	case MsgVerdict:
		return handshakePrefix + 8 + sha256.Size
	}
	return 0
}

// DecodeHandshake decodes one handshake message, which must fill b exactly.
// Errors wrap ErrHandshake.
func DecodeHandshake(b []byte) (HandshakeMsg, error) {
	if len(b) < handshakePrefix {
		return HandshakeMsg{}, fmt.Errorf("%w: %d-byte message", ErrHandshake, len(b))
	}
	if m := binary.LittleEndian.Uint32(b); m != HandshakeMagic {
		return HandshakeMsg{}, fmt.Errorf("%w: bad magic %#08x", ErrHandshake, m)
	}
	if v := b[4]; v != HandshakeVersion {
		return HandshakeMsg{}, fmt.Errorf("%w: version %d, want %d", ErrHandshake, v, HandshakeVersion)
	}
	m := HandshakeMsg{Type: HandshakeType(b[5])}
	size := HandshakeSize(m.Type)
	switch {
	case size == 0:
		return HandshakeMsg{}, fmt.Errorf("%w: unknown message type %d", ErrHandshake, b[5])
	case len(b) != size:
		return HandshakeMsg{}, fmt.Errorf("%w: message type %d of %d bytes, want %d", ErrHandshake, m.Type, len(b), size)
	case b[6] != 0 || b[7] != 0:
		return HandshakeMsg{}, fmt.Errorf("%w: reserved bytes set", ErrHandshake)
	}
	body := b[handshakePrefix:]
	switch m.Type {
	case MsgHello, MsgChallenge:
		from, to := binary.LittleEndian.Uint32(body), binary.LittleEndian.Uint32(body[4:])
		if from > math.MaxInt32 || to > math.MaxInt32 {
			return HandshakeMsg{}, fmt.Errorf("%w: rank out of range", ErrHandshake)
		}
		m.From, m.To = int(from), int(to)
		copy(m.Nonce[:], body[8:])
		if m.Type == MsgChallenge {
			copy(m.MAC[:], body[8+NonceSize:])
		}
	case MsgProof:
		copy(m.MAC[:], body)
	case MsgVerdict:
		m.Verdict = Verdict(binary.LittleEndian.Uint32(body))
		if m.Verdict < VerdictAccept || m.Verdict > VerdictRefuse || binary.LittleEndian.Uint32(body[4:]) != 0 {
			return HandshakeMsg{}, fmt.Errorf("%w: bad verdict %d", ErrHandshake, m.Verdict)
		}
		copy(m.MAC[:], body[8:])
	}
	return m, nil
}

// Append appends the encoding of m to b. From and To must be 0 to MaxInt32.
func (m HandshakeMsg) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, HandshakeMagic)
	b = append(b, HandshakeVersion, byte(m.Type), 0, 0)
	switch m.Type {
	case MsgHello, MsgChallenge:
		b = binary.LittleEndian.AppendUint32(b, uint32(m.From))
		b = binary.LittleEndian.AppendUint32(b, uint32(m.To))
		b = append(b, m.Nonce[:]...)
		if m.Type == MsgChallenge {
			b = append(b, m.MAC[:]...)
		}
	case MsgProof:
		b = append(b, m.MAC[:]...)
	case MsgVerdict:
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
	nd, na           [NonceSize]byte
}

// MAC role labels: distinct, so no proof is valid in another role.
const (
	roleAcceptor = "gompi btl tcp v1 acceptor"
	roleDialer   = "gompi btl tcp v1 dialer"
	roleVerdict  = "gompi btl tcp v1 verdict"
)

func (a *authority) mac(role string, s *session, v Verdict) [sha256.Size]byte {
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
func (a *authority) dial(r io.Reader, w io.Writer, peer int) (Verdict, error) {
	s := session{dialer: a.rank, acceptor: peer}
	rand.Read(s.nd[:])
	if err := writeMsg(w, HandshakeMsg{Type: MsgHello, From: a.rank, To: peer, Nonce: s.nd}); err != nil {
		return 0, err
	}
	ch, err := readMsg(r, MsgChallenge)
	if err != nil {
		return 0, err
	}
	if ch.From != peer || ch.To != a.rank {
		return 0, fmt.Errorf("%w: challenge from rank %d to rank %d, want %d to %d", ErrHandshake, ch.From, ch.To, peer, a.rank)
	}
	s.na = ch.Nonce
	if want := a.mac(roleAcceptor, &s, 0); !hmac.Equal(ch.MAC[:], want[:]) {
		return 0, fmt.Errorf("%w: rank %d's proof does not match this job's secret", ErrHandshake, peer)
	}
	if err := writeMsg(w, HandshakeMsg{Type: MsgProof, MAC: a.mac(roleDialer, &s, 0)}); err != nil {
		return 0, err
	}
	vm, err := readMsg(r, MsgVerdict)
	if err != nil {
		return 0, err
	}
	if want := a.mac(roleVerdict, &s, vm.Verdict); !hmac.Equal(vm.MAC[:], want[:]) {
		return 0, fmt.Errorf("%w: rank %d's verdict is not authentic", ErrHandshake, peer)
	}
	return vm.Verdict, nil
}

// accept runs the acceptor's side up to the verdict: it returns the session
// of an authenticated dialer, whose rank is s.dialer.
func (a *authority) accept(r io.Reader, w io.Writer) (session, error) {
	h, err := readMsg(r, MsgHello)
	if err != nil {
		return session{}, err
	}
	if h.To != a.rank || h.From >= a.size {
		return session{}, fmt.Errorf("%w: hello from rank %d to rank %d, but this is rank %d of %d", ErrHandshake, h.From, h.To, a.rank, a.size)
	}
	s := session{dialer: h.From, acceptor: a.rank, nd: h.Nonce}
	rand.Read(s.na[:])
	if err := writeMsg(w, HandshakeMsg{Type: MsgChallenge, From: a.rank, To: h.From, Nonce: s.na, MAC: a.mac(roleAcceptor, &s, 0)}); err != nil {
		return session{}, err
	}
	p, err := readMsg(r, MsgProof)
	if err != nil {
		return session{}, err
	}
	if want := a.mac(roleDialer, &s, 0); !hmac.Equal(p.MAC[:], want[:]) {
		return session{}, fmt.Errorf("%w: the dialer claiming rank %d does not know this job's secret", ErrHandshake, h.From)
	}
	return s, nil
}

// verdict sends the acceptor's decision on an authenticated session.
func (a *authority) verdict(w io.Writer, s *session, v Verdict) error {
	return writeMsg(w, HandshakeMsg{Type: MsgVerdict, Verdict: v, MAC: a.mac(roleVerdict, s, v)})
}

func writeMsg(w io.Writer, m HandshakeMsg) error {
	var buf [maxHandshakeSize]byte
	if _, err := w.Write(m.Append(buf[:0])); err != nil {
		return fmt.Errorf("send handshake: %w", err)
	}
	return nil
}

// readMsg reads exactly one message of type t: a stranger's junk costs at
// most maxHandshakeSize bytes.
func readMsg(r io.Reader, t HandshakeType) (HandshakeMsg, error) {
	var buf [maxHandshakeSize]byte
	b := buf[:HandshakeSize(t)]
	if _, err := io.ReadFull(r, b); err != nil {
		return HandshakeMsg{}, fmt.Errorf("read handshake: %w", err)
	}
	m, err := DecodeHandshake(b)
	if err != nil {
		return HandshakeMsg{}, err
	}
	if m.Type != t {
		return HandshakeMsg{}, fmt.Errorf("%w: got message type %d, want %d", ErrHandshake, m.Type, t)
	}
	return m, nil
}
