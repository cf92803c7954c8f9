// Package testlog is a log sink for tests whose loggers are written from
// several goroutines (ranks in one process, go-plugin's stdio) while the
// test reads them.
package testlog

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer behind a lock.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
