package console

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"
)

// maxLine bounds one line of input; a longer one is cut there.
const maxLine = 1 << 20

// Line is one line of input with the number of the read that brought its
// end: lines typed or pasted before a prompt came with reads made before
// it, so they can be told from an answer to it.
type Line struct {
	Text string
	Seq  uint64
}

// Reader reads lines from the terminal and counts its reads.
type Reader struct {
	r     io.Reader
	reads atomic.Uint64
}

// NewReader reads lines from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// Mark returns the number of reads done so far: a line whose Seq is
// greater came after the caller took the mark. Take it just before the
// prompt is written, and an approval is answered only by what was read
// after it.
func (rd *Reader) Mark() uint64 { return rd.reads.Load() }

// After reports whether a line arrived after mark.
func (l Line) After(mark uint64) bool { return l.Seq > mark }

// Lines reads until end of input or ctx ends; the channel is closed then.
// A read in progress cannot be interrupted: the goroutine ends with it.
func (rd *Reader) Lines(ctx context.Context) <-chan Line {
	out := make(chan Line)
	go func() {
		defer close(out)
		buf := make([]byte, 64<<10)
		var pending []byte
		send := func(text []byte, seq uint64) bool {
			select {
			case out <- Line{Text: string(bytes.TrimSuffix(text, []byte("\r"))), Seq: seq}:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for {
			n, err := rd.r.Read(buf)
			seq := rd.reads.Add(1)
			pending = append(pending, buf[:n]...)
			for {
				i, skip := bytes.IndexByte(pending, '\n'), 1
				if i < 0 && len(pending) >= maxLine {
					i, skip = maxLine, 0
				}
				if i < 0 {
					break
				}
				if !send(pending[:i], seq) {
					return
				}
				pending = pending[i+skip:]
			}
			if err != nil {
				if len(pending) > 0 {
					send(pending, seq)
				}
				return
			}
		}
	}()
	return out
}
