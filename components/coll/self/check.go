package self

import "github.com/gompi/gompi/frameworks/coll"

// block checks that counts and displs give the one rank a block of buffer
// what, inside it, and returns that block.
func block(c coll.Comm, what string, buf []byte, counts, displs []int) ([]byte, error) {
	if err := coll.CheckBlocks(c, what, counts, displs, len(buf)); err != nil {
		return nil, err
	}
	return buf[displs[0] : displs[0]+counts[0]], nil
}
