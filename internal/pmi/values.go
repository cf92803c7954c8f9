package pmi

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// A value is stored as base64url text (letters, digits, '-' and '_':
// nothing either protocol treats specially). The first key holds
// "N," followed by the first piece, where N is the number of pieces; piece
// i >= 1 is under KEY.i. maxPieces bounds N so that a corrupt header
// cannot start an endless series of gets.
const maxPieces = 9999

var enc = base64.RawURLEncoding

// checkKey admits keys of letters, digits, '_' and '-' that leave room
// for a piece suffix within the server's key length.
func checkKey(key string, keyMax int) error {
	room := keyMax - len(".9999")
	if key == "" || len(key) > room {
		return fmt.Errorf("key %q: allowed are 1 to %d characters", key, room)
	}
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("key %q holds %q: allowed are letters, digits, '_' and '-'", key, r)
		}
	}
	return nil
}

func pieceKey(key string, i int) string {
	if i == 0 {
		return key
	}
	return key + "." + strconv.Itoa(i)
}

// split cuts the encoded value into pieces of at most valMax characters,
// the first one after its "N," header.
func split(value []byte, valMax int) ([]string, error) {
	text := enc.EncodeToString(value)
	// Guess N, then grow it until the header fits with the pieces.
	for n := 1; n <= maxPieces; n++ {
		first := valMax - len(strconv.Itoa(n)) - 1
		if first < 0 || len(text) > first+(n-1)*valMax {
			continue
		}
		pieces := make([]string, 0, n)
		pieces = append(pieces, strconv.Itoa(n)+","+text[:min(first, len(text))])
		for rest := text[min(first, len(text)):]; rest != ""; {
			k := min(valMax, len(rest))
			pieces = append(pieces, rest[:k])
			rest = rest[k:]
		}
		return pieces, nil
	}
	return nil, fmt.Errorf("value of %d bytes does not fit in %d pieces of %d characters", len(value), maxPieces, valMax)
}

// Put stores value under key in the job's key-value space. Other ranks
// see it after the next Fence. Keys are letters, digits, '_' and '-'; a
// value is any bytes, split over several keys when the server's value
// limit requires.
func (c *Client) Put(key string, value []byte) error {
	keyMax, valMax := c.proto.limits()
	if err := checkKey(key, keyMax); err != nil {
		return fmt.Errorf("pmi: put: %w", err)
	}
	pieces, err := split(value, valMax)
	if err != nil {
		return fmt.Errorf("pmi: put %s: %w", key, err)
	}
	return c.do("put "+key, func() error {
		for i, p := range pieces {
			if err := c.proto.put(pieceKey(key, i), p); err != nil {
				return err
			}
		}
		return nil
	})
}

// Get returns the value another rank (or this one) put under key before
// the last Fence. A missing key is an error wrapping ErrNotFound.
func (c *Client) Get(key string) ([]byte, error) {
	keyMax, _ := c.proto.limits()
	if err := checkKey(key, keyMax); err != nil {
		return nil, fmt.Errorf("pmi: get: %w", err)
	}
	var value []byte
	err := c.do("get "+key, func() error {
		first, err := c.proto.get(key)
		if err != nil {
			return err
		}
		head, text, ok := strings.Cut(first, ",")
		n, nerr := strconv.Atoi(head)
		if !ok || nerr != nil || n < 1 || n > maxPieces {
			return valueError{fmt.Errorf("get %s: value %s was not stored by Put: it lacks the \"N,\" piece count (N from 1 to %d)", key, quoteRaw(first), maxPieces)}
		}
		var b strings.Builder
		b.WriteString(text)
		for i := 1; i < n; i++ {
			p, err := c.proto.get(pieceKey(key, i))
			if err != nil {
				return fmt.Errorf("piece %d of %d of %s: %w", i, n, key, err)
			}
			b.WriteString(p)
		}
		if value, err = enc.DecodeString(b.String()); err != nil {
			return valueError{fmt.Errorf("get %s: the value is not base64url: %w", key, err)}
		}
		return nil
	})
	return value, err
}

// valueError is a value that came back intact over the wire but is not
// one Put wrote; the connection stays usable.
type valueError struct{ error }

func (e valueError) Unwrap() error { return e.error }
