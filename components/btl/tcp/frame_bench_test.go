package tcp

import "testing"

// Every fragment on a tcp connection pays one frame header encode on the
// sender and one decode on the receiver.

var frameSink FrameHeader

func BenchmarkFrameHeaderPut(b *testing.B) {
	h := FrameHeader{HeaderLen: 40, PayloadLen: 4096}
	buf := make([]byte, FrameHeaderSize)
	b.ReportAllocs()
	for b.Loop() {
		h.Put(buf)
	}
}

func BenchmarkDecodeFrameHeader(b *testing.B) {
	buf := make([]byte, FrameHeaderSize)
	FrameHeader{HeaderLen: 40, PayloadLen: 4096}.Put(buf)
	b.ReportAllocs()
	for b.Loop() {
		h, err := DecodeFrameHeader(buf)
		if err != nil {
			b.Fatal(err)
		}
		frameSink = h
	}
}

// BenchmarkDecodeFrameHeaderCorrupt is the error path: a reader that meets
// junk must reject it cheaply.
func BenchmarkDecodeFrameHeaderCorrupt(b *testing.B) {
	buf := make([]byte, FrameHeaderSize)
	FrameHeader{HeaderLen: 40, PayloadLen: 4096}.Put(buf)
	buf[0] ^= 0xff
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeFrameHeader(buf); err == nil {
			b.Fatal("corrupt header accepted")
		}
	}
}
