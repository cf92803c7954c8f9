package tcp

import "testing"

// Every fragment on a tcp connection pays one frame header encode on the
// sender and one decode on the receiver.

var frameSink frameHeader

func BenchmarkFrameHeaderPut(b *testing.B) {
	h := frameHeader{HeaderLen: 40, PayloadLen: 4096}
	buf := make([]byte, frameHeaderSize)
	b.ReportAllocs()
	for b.Loop() {
		h.Put(buf)
	}
}

func BenchmarkDecodeFrameHeader(b *testing.B) {
	buf := make([]byte, frameHeaderSize)
	frameHeader{HeaderLen: 40, PayloadLen: 4096}.Put(buf)
	b.ReportAllocs()
	for b.Loop() {
		h, err := decodeFrameHeader(buf)
		if err != nil {
			b.Fatal(err)
		}
		frameSink = h
	}
}

// BenchmarkDecodeFrameHeaderCorrupt is the error path: a reader that meets
// junk must reject it cheaply.
func BenchmarkDecodeFrameHeaderCorrupt(b *testing.B) {
	buf := make([]byte, frameHeaderSize)
	frameHeader{HeaderLen: 40, PayloadLen: 4096}.Put(buf)
	buf[0] ^= 0xff
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeFrameHeader(buf); err == nil {
			b.Fatal("corrupt header accepted")
		}
	}
}
