// Package jobauth authenticates the connections to a job's servers (the
// job server of gompirun) with the job's secret, both ways, before gRPC
// speaks on them: a job's ranks and daemons may run on other hosts and
// reach gompirun over TCP, where anyone can connect.
//
// The client C connects to the server S:
//
//	C → S  Hello      nonce nc
//	S → C  Challenge  nonce ns, MAC("server", nc, ns)
//	C → S  Proof      MAC("client", nc, ns)
//	S → C  Verdict    MAC("accept", nc, ns)
//
// Each MAC is HMAC-SHA256 keyed with the job's secret over a role label,
// the job id and both nonces, so that a proof cannot be replayed in the
// other role, in another job or on another connection. The client checks
// the server's MAC before it proves anything, and the server checks the
// proof before gRPC reads a byte: the secret never travels, a stranger who
// connects learns nothing and is refused, and a rank never talks to a
// server that does not hold its job's secret. Every message starts with an
// 8-byte prefix: magic "GMPJ", the version, the message type, two zero
// bytes.
//
// The traffic after the handshake is not encrypted: what a job exchanges
// through its server (addresses, the ranks' states) is not secret, and the
// transports authenticate their own connections with the same secret.
package jobauth

import (
	"context"
	"errors"
	"net"
	"time"

	"google.golang.org/grpc/credentials"
)

// SecurityProtocol names the handshake in gRPC's connection information.
const SecurityProtocol = "gompi-job"

// serverHandshakeTimeout bounds how long the server waits for a client's
// handshake: a stranger that connects and says nothing is dropped.
const serverHandshakeTimeout = 10 * time.Second

// Credentials returns gRPC transport credentials that run the handshake
// for the job jobID with secret, on either side. refused, if not nil, is
// told of every connection the server side refused because its peer did
// not speak the handshake or did not prove it holds the secret, with the
// reason; a peer that closed or reset the connection is not reported (a
// rank killed while it connects, when a job stops).
func Credentials(jobID string, secret []byte, refused func(remote net.Addr, err error)) credentials.TransportCredentials {
	if refused == nil {
		refused = func(net.Addr, error) {}
	}
	return &creds{jobID: jobID, secret: append([]byte(nil), secret...), refused: refused}
}

type creds struct {
	jobID   string
	secret  []byte
	refused func(net.Addr, error)
}

// AuthInfo is what a connection proved: that the peer holds the secret of
// the job.
type AuthInfo struct {
	credentials.CommonAuthInfo
	JobID string
}

// AuthType implements credentials.AuthInfo.
func (AuthInfo) AuthType() string { return SecurityProtocol }

func (c *creds) info() AuthInfo {
	return AuthInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}, JobID: c.jobID}
}

// ClientHandshake implements credentials.TransportCredentials.
func (c *creds) ClientHandshake(ctx context.Context, _ string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if d, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(d); err != nil {
			return nil, nil, err
		}
		defer conn.SetDeadline(time.Time{})
	}
	if err := clientHandshake(conn, c.jobID, c.secret); err != nil {
		conn.Close()
		return nil, nil, err // the caller names the server
	}
	return conn, c.info(), nil
}

// ServerHandshake implements credentials.TransportCredentials.
func (c *creds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if err := conn.SetDeadline(time.Now().Add(serverHandshakeTimeout)); err != nil {
		conn.Close()
		return nil, nil, err
	}
	if err := serverHandshake(conn, c.jobID, c.secret); err != nil {
		if errors.Is(err, errBadPeer) {
			c.refused(conn.RemoteAddr(), err)
		}
		conn.Close()
		return nil, nil, err
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, c.info(), nil
}

// Info implements credentials.TransportCredentials.
func (c *creds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: SecurityProtocol}
}

// Clone implements credentials.TransportCredentials.
func (c *creds) Clone() credentials.TransportCredentials {
	return &creds{jobID: c.jobID, secret: append([]byte(nil), c.secret...), refused: c.refused}
}

// OverrideServerName implements credentials.TransportCredentials; the
// handshake names no server.
func (c *creds) OverrideServerName(string) error { return nil }
