package trace

// events holds a rank's records in chunks of fixed size: appending never
// copies what is recorded already, nor touches fresh pages twice, as
// growing one slice to a million records would.
type events struct {
	chunks [][]record
	n      int
}

const chunkSize = 4096

func (e *events) add(r record) {
	if e.n%chunkSize == 0 {
		e.chunks = append(e.chunks, make([]record, 0, chunkSize))
	}
	last := len(e.chunks) - 1
	e.chunks[last] = append(e.chunks[last], r)
	e.n++
}

func (e *events) len() int { return e.n }

// all yields every record in the order added.
func (e *events) all(yield func(record) bool) {
	for _, c := range e.chunks {
		for _, r := range c {
			if !yield(r) {
				return
			}
		}
	}
}
