package jobauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const (
	magic     = 0x4a504d47 // "GMPJ" read as little-endian bytes
	version   = 1
	prefixLen = 8
	nonceLen  = 32
	macLen    = sha256.Size
)

// msgType is a handshake message's type.
type msgType uint8

const (
	msgHello msgType = iota + 1
	msgChallenge
	msgProof
	msgVerdict
)

// bodyLen is the length of a message of type t after its prefix.
func (t msgType) bodyLen() int {
	switch t {
	case msgHello:
		return nonceLen
	case msgChallenge:
		return nonceLen + macLen
	}
	return macLen
}

func (t msgType) String() string {
	switch t {
	case msgHello:
		return "hello"
	case msgChallenge:
		return "challenge"
	case msgProof:
		return "proof"
	case msgVerdict:
		return "verdict"
	}
	return fmt.Sprintf("message type %d", uint8(t))
}

// errBadPeer marks a peer that does not speak the handshake or cannot
// prove that it holds the secret.
var errBadPeer = errors.New("not a member of this job")

func send(w io.Writer, t msgType, body ...[]byte) error {
	b := make([]byte, prefixLen, prefixLen+t.bodyLen())
	binary.LittleEndian.PutUint32(b, magic)
	b[4], b[5] = version, byte(t)
	for _, x := range body {
		b = append(b, x...)
	}
	_, err := w.Write(b)
	return err
}

// receive reads a message of type t and returns its body. Anything else
// (another magic, version or type) is errBadPeer, without reading further.
func receive(r io.Reader, t msgType) ([]byte, error) {
	var p [prefixLen]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return nil, fmt.Errorf("reading the %v: %w", t, err)
	}
	if m := binary.LittleEndian.Uint32(p[:]); m != magic {
		return nil, fmt.Errorf("%w: the %v does not start with the handshake's magic (got %#08x)", errBadPeer, t, m)
	}
	if p[4] != version {
		return nil, fmt.Errorf("%w: handshake version %d, want %d", errBadPeer, p[4], version)
	}
	if got := msgType(p[5]); got != t {
		return nil, fmt.Errorf("%w: got a %v where a %v was due", errBadPeer, got, t)
	}
	body := make([]byte, t.bodyLen())
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading the %v: %w", t, err)
	}
	return body, nil
}

// mac is the MAC of role over the job and both nonces.
func mac(secret []byte, role, jobID string, nc, ns []byte) []byte {
	h := hmac.New(sha256.New, secret)
	for _, part := range [][]byte{[]byte(role), []byte(jobID), nc, ns} {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	return h.Sum(nil)
}

func nonce() ([]byte, error) {
	b := make([]byte, nonceLen)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("reading random bytes: %w", err)
	}
	return b, nil
}

func clientHandshake(rw io.ReadWriter, jobID string, secret []byte) error {
	nc, err := nonce()
	if err != nil {
		return err
	}
	if err := send(rw, msgHello, nc); err != nil {
		return fmt.Errorf("sending the hello: %w", err)
	}
	ch, err := receive(rw, msgChallenge)
	if err != nil {
		return err
	}
	ns := ch[:nonceLen]
	if !hmac.Equal(ch[nonceLen:], mac(secret, "server", jobID, nc, ns)) {
		return fmt.Errorf("%w: the server's challenge does not carry job %s's MAC: it serves another job, "+
			"or one of the two holds the wrong job secret", errBadPeer, jobID)
	}
	if err := send(rw, msgProof, mac(secret, "client", jobID, nc, ns)); err != nil {
		return fmt.Errorf("sending the proof: %w", err)
	}
	v, err := receive(rw, msgVerdict)
	if err != nil {
		return err
	}
	if !hmac.Equal(v, mac(secret, "accept", jobID, nc, ns)) {
		return fmt.Errorf("%w: the server's verdict does not carry job %s's MAC", errBadPeer, jobID)
	}
	return nil
}

func serverHandshake(rw io.ReadWriter, jobID string, secret []byte) error {
	nc, err := receive(rw, msgHello)
	if err != nil {
		return err
	}
	ns, err := nonce()
	if err != nil {
		return err
	}
	if err := send(rw, msgChallenge, ns, mac(secret, "server", jobID, nc, ns)); err != nil {
		return fmt.Errorf("sending the challenge: %w", err)
	}
	proof, err := receive(rw, msgProof)
	if err != nil {
		return err
	}
	if !hmac.Equal(proof, mac(secret, "client", jobID, nc, ns)) {
		return fmt.Errorf("%w: the proof does not carry job %s's MAC", errBadPeer, jobID)
	}
	if err := send(rw, msgVerdict, mac(secret, "accept", jobID, nc, ns)); err != nil {
		return fmt.Errorf("sending the verdict: %w", err)
	}
	return nil
}
