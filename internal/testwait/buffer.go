package testwait

import (
	"bytes"
	"sync"
)

// Buffer is output that goroutines under test write (a log, a child's
// stderr, a console) while the test reads or waits on it. Its zero value is
// empty and ready; it is safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
