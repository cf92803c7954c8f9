package basic

// block is the block of rank i in buf.
func block(buf []byte, counts, displs []int, i int) []byte {
	return buf[displs[i] : displs[i]+counts[i]]
}

// even returns the counts and displacements of size blocks of n bytes laid
// end to end.
func even(size, n int) (counts, displs []int) {
	counts, displs = make([]int, size), make([]int, size)
	for i := range size {
		counts[i], displs[i] = n, i*n
	}
	return counts, displs
}
