package mcphost

import (
	"strings"
	"testing"
)

// The sniffer sees stdout in whatever pieces the pipe delivers; every split
// of the same stream must give the same verdict.
func TestSnifferCountsLinesThatAreNotJSON(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name   string
		stream string
		bad    int
		first  string
	}{
		{"only JSON-RPC", `{"jsonrpc":"2.0","id":1}` + "\n" + `{"jsonrpc":"2.0","id":2}` + "\n", 0, ""},
		{"blank lines and indented JSON", "\n\r\n  \t{\"a\":1}\n\n", 0, ""},
		{"a banner first", "Server listening on stdio\n{\"jsonrpc\":\"2.0\"}\n", 1, "Server listening on stdio"},
		{"two bad lines: the first is named", "  starting up  \r\n{}\nready!\n", 2, "starting up"},
		{"a bad line without its newline yet", "{}\nWARNING: deprecated", 1, "WARNING: deprecated"},
		{"a long bad line is cut", long + "\n", 1, strings.Repeat("x", firstMax)},
		{"a brace inside a bad line does not help", "log {x}\n", 1, "log {x}"},
		{"a huge JSON line", "{" + strings.Repeat(`"k":1,`, 5000) + "\"z\":0}\nbye\n", 1, "bye"},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 2, 7, 4096, len(tt.stream) + 1} {
			var s sniffer
			for rest := tt.stream; rest != ""; {
				k := min(size, len(rest))
				if n, err := s.Write([]byte(rest[:k])); n != k || err != nil {
					t.Fatalf("%s: Write = %d, %v; want %d, nil", tt.name, n, err, k)
				}
				rest = rest[k:]
			}
			bad, first := s.garbage()
			if bad != tt.bad || first != tt.first {
				t.Errorf("%s, pieces of %d: garbage() = %d, %q; want %d, %q", tt.name, size, bad, first, tt.bad, tt.first)
			}
		}
	}
}

// The sniffer keeps no copy of the stream: a long session of large answers
// leaves it holding only the first bad line's start.
func TestSnifferKeepsNoCopyOfTheStream(t *testing.T) {
	var s sniffer
	line := []byte("{" + strings.Repeat(`"k":1,`, 2000) + "\"z\":0}\n")
	allocs := testing.AllocsPerRun(100, func() { _, _ = s.Write(line) })
	if allocs != 0 {
		t.Errorf("Write of a JSON line allocates %.0f times, want 0", allocs)
	}
	if cap(s.first) != 0 {
		t.Errorf("the sniffer holds %d bytes after JSON lines only, want none", cap(s.first))
	}
}
