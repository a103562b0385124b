package main

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"testing"
)

var testModules = newModules("github.com/jarvisbot/jarvisbot", []string{
	"github.com/mark3labs/mcp-go",
	"golang.org/x/text",
	"golang.org/x/text/nested", // a nested module wins over its parent
	"gopkg.in/yaml.v3",
	"modernc.org/sqlite",
})

func TestSymbolModule(t *testing.T) {
	for _, tc := range []struct{ symbol, want string }{
		{"main.main", "github.com/jarvisbot/jarvisbot"},
		{"github.com/jarvisbot/jarvisbot/web.(*Server).pluginShow.func1", "github.com/jarvisbot/jarvisbot"},
		{"github.com/mark3labs/mcp-go/server.(*MCPServer).HandleMessage", "github.com/mark3labs/mcp-go"},
		{"modernc.org/sqlite/lib._sqlite3VdbeExec", "modernc.org/sqlite"},
		{"golang.org/x/text/nested/pkg.F", "golang.org/x/text/nested"},
		{"golang.org/x/text/encoding/japanese.encode0", "golang.org/x/text"},
		{"gopkg.in/yaml%2ev3.Unmarshal", "gopkg.in/yaml.v3"},
		{"gopkg.in/yaml.v3/sub.F", "gopkg.in/yaml.v3"},
		{"runtime.mallocgc", stdModule},
		{"vendor/golang.org/x/net/idna.idnaValues", stdModule},
		{"crypto/internal/fips140/sha3.keccakF1600.abi0", stdModule},
		{"cmp..dict.isNaN[time.Duration]", stdModule},
		{"slices.SortFunc[go.shape.[]github.com/mark3labs/mcp-go/mcp.Tool]", stdModule},
		{"github.com/mark3labs/mcp-go/mcp.(*Result[go.shape.string]).Get", "github.com/mark3labs/mcp-go"},
		{"type:.eq.github.com/mark3labs/mcp-go/mcp.Tool", "github.com/mark3labs/mcp-go"},
		{"type:.eq.[2]modernc.org/sqlite.conn", "modernc.org/sqlite"},
		{"type:.hash.*gopkg.in/yaml%2ev3.Node", "gopkg.in/yaml.v3"},
		{"go:itab.*github.com/mark3labs/mcp-go/server.MCPServer,io.Writer", "github.com/mark3labs/mcp-go"},
		{"go:itab.*os.File,io.Reader", stdModule},
		{"github.com/unknown/module.F", otherModule},
		{"$f64.3ff0000000000000", otherModule},
		{"go:buildinfo", otherModule},
		{"go:func.*", otherModule},
		{"go:(*struct { a int }).M", otherModule},
		{"type:.eq.[2]interface {}", otherModule},
		{"bswapMask", otherModule},
	} {
		if got := testModules.ofSymbol(tc.symbol); got != tc.want {
			t.Errorf("ofSymbol(%q) = %q, want %q", tc.symbol, got, tc.want)
		}
	}
}

func TestLayoutAttributesPclntabByFunction(t *testing.T) {
	pcln := addrRange{0x3000, 0x3000 + 1000}
	l := newLayout([]symbol{
		{addr: 0x1000, size: 300, module: "a"},
		{addr: 0x1200, size: 100, module: "b"},
		{addr: 0x2000, size: 50, module: "b"},
		{addr: 0x2100, size: 100, module: stdModule},            // overlapping symbols ...
		{addr: 0x2120, size: 20, module: "a"},                   // ... count each byte once
		{addr: pcln.start + 10, size: 200, module: otherModule}, // funcdata goes by its functions
	}, pcln, []span{
		{addrRange{pcln.start + 100, pcln.start + 400}, "a"},
		{addrRange{pcln.start + 400, pcln.start + 650}, "b"},
		{addrRange{pcln.end - 10, pcln.end + 90}, "b"}, // not inside .gopclntab: dropped
	}, 3000)
	want := map[string]float64{
		"a":         300 + 300,
		"b":         100 + 50 + 250,
		stdModule:   100,
		otherModule: 3000 - (300 + 100 + 50 + 100 + 550), // .gopclntab's unattributed 450 bytes among them
	}
	got := l.binarySize()
	if !sameFloats(got, want) {
		t.Errorf("binarySize() = %v, want %v", got, want)
	}
	var sum float64
	for _, v := range got {
		sum += v
	}
	if sum != 3000 {
		t.Errorf("sizes add up to %v, want the file size 3000", sum)
	}
}

func TestBytesInSplitsAPage(t *testing.T) {
	pcln := addrRange{0x2000, 0x3000}
	l := newLayout([]symbol{
		{addr: 0x0f00, size: 0x200, module: "a"}, // straddles the page start
		{addr: 0x1800, size: 0x100, module: "b"},
		{addr: 0x1f00, size: 0x80, module: "a"},
	}, pcln, []span{{addrRange{0x2000, 0x2400}, "b"}, {addrRange{0x2400, 0x2c00}, "a"}}, 0x4000)
	for _, tc := range []struct {
		name       string
		start, end uint64
		want       map[string]float64
	}{
		{"symbols and a gap", 0x1000, 0x2000, map[string]float64{"a": 0x100 + 0x80, "b": 0x100, otherModule: 0x1000 - 0x280}},
		{"pclntab by function", 0x2000, 0x3000, map[string]float64{"a": 0x800, "b": 0x400, otherModule: 0x400}},
		{"nothing there", 0x3000, 0x4000, map[string]float64{otherModule: 0x1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]float64{}
			l.bytesIn(tc.start, tc.end, got)
			if !sameFloats(got, tc.want) {
				t.Errorf("bytesIn(%#x, %#x) = %v, want %v", tc.start, tc.end, got, tc.want)
			}
		})
	}
}

func TestInitCosts(t *testing.T) {
	out := `init internal/bytealg @0.021 ms, 0 ms clock, 0 bytes, 0 allocs
init runtime @0.42 ms, 0.24 ms clock, 0 bytes, 0 allocs
init unicode @1.9 ms, 0.031 ms clock, 24 bytes, 1 allocs
init golang.org/x/text/encoding/japanese @2.0 ms, 0.004 ms clock, 4096 bytes, 3 allocs
init golang.org/x/text/unicode/norm @2.1 ms, 0.010 ms clock, 1000 bytes, 7 allocs
init gopkg.in/yaml.v3 @3 ms, 0.5 ms clock, 12 bytes, 2 allocs
init github.com/jarvisbot/jarvisbot/web @4.5 ms, 1.2 ms clock, 81920 bytes, 640 allocs
usage: jarvisbot COMMAND [flags] [args]
  init       set up the data directory
`
	got, err := initCosts(out, testModules)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]initCost{
		stdModule:                        {24, 1},
		"golang.org/x/text":              {5096, 10},
		"gopkg.in/yaml.v3":               {12, 2},
		"github.com/jarvisbot/jarvisbot": {81920, 640},
	}
	if !maps.Equal(got, want) {
		t.Errorf("initCosts = %v, want %v", got, want)
	}
	if _, err := initCosts("usage: jarvisbot COMMAND\n", testModules); err == nil {
		t.Error("initCosts of output without inittrace lines: no error, want one")
	}
}

func TestPresentPages(t *testing.T) {
	entry := func(bits uint64) []byte { return binary.LittleEndian.AppendUint64(nil, bits) }
	entries := slices.Concat(
		entry(pagePresent|pageFile|0x1234), // a file page (the PFN is zero without privileges; it does not matter)
		entry(0),                           // not in memory
		entry(pagePresent|1<<55),           // a private copy, soft-dirty
		entry(1<<62),                       // swapped out: not resident
		entry(pagePresent|pageFile),
	)
	got := presentPages(entries, 0x400000, 4096)
	want := []residentPage{{0x400000, true}, {0x402000, false}, {0x404000, true}}
	if !slices.Equal(got, want) {
		t.Errorf("presentPages = %v, want %v", got, want)
	}
}

func TestExecutableMappings(t *testing.T) {
	maps := `00400000-01229000 r-xp 00000000 fd:01 123 /tmp/x/jarvisbot
01229000-02354000 r--p 00e29000 fd:01 123 /tmp/x/jarvisbot
02354000-024b5000 rw-p 01f54000 fd:01 123 /tmp/x/jarvisbot
024b5000-04500000 rw-p 00000000 00:00 0
c000000000-c004000000 rw-p 00000000 00:00 0
7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]
`
	got, err := executableMappings(maps, "/tmp/x/jarvisbot")
	if err != nil {
		t.Fatal(err)
	}
	want := []addrRange{{0x400000, 0x1229000}, {0x1229000, 0x2354000}, {0x2354000, 0x24b5000}}
	if !slices.Equal(got, want) {
		t.Errorf("executableMappings = %v, want %v", got, want)
	}
	if _, err := executableMappings(maps, "/elsewhere/jarvisbot"); err == nil {
		t.Error("executableMappings of a file not mapped: no error, want one")
	}
}

// sameFloats compares shares of bytes, which need not divide exactly; a
// module missing from one map counts as zero there.
func sameFloats(got, want map[string]float64) bool {
	for k := range got {
		if math.Abs(got[k]-want[k]) > 1e-6 {
			return false
		}
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-6 {
			return false
		}
	}
	return true
}

func TestOtherBySection(t *testing.T) {
	l := newLayout([]symbol{
		{addr: 0x1000, size: 0xf00, module: "a"},
		{addr: 0x2000, size: 0x100, module: "a"},
	}, addrRange{0x3000, 0x3800}, []span{{addrRange{0x3000, 0x3780}, "a"}}, 0x5000)
	l.sections = []section{
		{addrRange{0x1000, 0x2000}, ".text"},
		{addrRange{0x2000, 0x3000}, ".rodata"},
		{addrRange{0x3000, 0x3800}, ".gopclntab"},
	}
	parts, outside := l.otherBySection()
	want := []sectionBytes{{".rodata", 0xf00}, {".text", 0x100}, {".gopclntab", 0x80}}
	if !slices.Equal(parts, want) || outside != 0x5000-0x2800 {
		t.Errorf("otherBySection() = %v, %#x; want %v, %#x", parts, outside, want, 0x5000-0x2800)
	}
}
