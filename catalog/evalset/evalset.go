// Package evalset reads labelled request sets (the *-dev.jsonl files) and
// scores the catalog's MCP gate (C5) against them: exact matches, server
// recall, false offers and the tool schema the model would be sent. The
// `jarvisbot eval gate` command and the gate's tests share it, so the
// figures in a closing note and in CI are computed one way.
package evalset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// Case is one labelled request.
type Case struct {
	Line int      `json:"-"`
	Text string   `json:"text"`
	Want []string `json:"-"`  // servers that must be offered
	OK   []string `json:"ok"` // servers that may also be offered
	Tag  string   `json:"tag"`
	Lang string   `json:"lang"`
}

// Read parses a JSON Lines request set. "want" may be a list of servers, a
// single name or null (the skills set uses the single form).
func Read(r io.Reader, name string) ([]Case, error) {
	var out []Case
	err := eachLine(r, name, func(n int, line []byte) error {
		var raw struct {
			Case
			Want json.RawMessage `json:"want"`
		}
		if err := json.Unmarshal(line, &raw); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s line %d: %v", name, n, err)
		}
		c := raw.Case
		c.Line = n
		switch w := strings.TrimSpace(string(raw.Want)); {
		case w == "" || w == "null":
		case strings.HasPrefix(w, "["):
			if err := json.Unmarshal(raw.Want, &c.Want); err != nil {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s line %d: want: %v", name, n, err)
			}
		default:
			var s string
			if err := json.Unmarshal(raw.Want, &s); err != nil {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s line %d: want must be a list, a string or null", name, n)
			}
			c.Want = []string{s}
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// eachLine calls fn with each line of a JSON Lines set that is not blank,
// and its number; it stops at the first error.
func eachLine(r io.Reader, name string, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "read %s: %w", name, err)
	}
	return nil
}

// Result is the gate's answer to one case.
type Result struct {
	Case    Case
	Offered []string
	Exact   bool     // every wanted server offered, nothing beyond want and ok
	Missed  []string // wanted, not offered
	Extra   []string // offered, neither wanted nor ok
	Tools   int      // MCP tools offered
	Tokens  int      // schema tokens of the MCP tools offered
	Because map[string]string
}

// Report sums a run over a request set.
type Report struct {
	Results      []Result
	Cases        int
	Exact        int
	WantTotal    int // wanted servers over all cases
	WantFound    int
	FalseOffers  int
	MCPTools     int // MCP tools in the catalog
	MCPTokensAll int // schema tokens of every MCP tool
	OfferedTools int // summed over cases
	OfferedToks  int
	ByTag        map[string][2]int // tag -> exact, cases
}

// Tokens estimates the tokens of a capability's schema as bytes/4.
func Tokens(c *catalog.Capability) int { return (c.SchemaBytes() + 3) / 4 }

// Run resolves every case with the plan and scores it.
//
// manuals, when not nil, names the store plugins whose manual enters the
// turn for a message (the skill scorer's verdict): their servers are
// offered with them, as in a real turn.
func Run(pl *catalog.Plan, cases []Case, manuals func(msg string) []string) Report {
	rep := Report{ByTag: map[string][2]int{}}
	view := pl.View()
	for i := range view.Capabilities() {
		c := &view.Capabilities()[i]
		if c.Kind == catalog.KindMCP && c.Connected {
			rep.MCPTools++
			rep.MCPTokensAll += Tokens(c)
		}
	}
	var t catalog.Turn
	for _, c := range cases {
		var joined []string
		if manuals != nil {
			joined = manuals(c.Text)
		}
		pl.Turn(c.Text, &t, joined...)
		r := Result{Case: c, Because: map[string]string{}}
		for _, ch := range t.Explain() {
			r.Because[ch.Server] = ch.Because
			if ch.Offered {
				r.Offered = append(r.Offered, ch.Server)
			}
		}
		for _, cp := range t.Tools {
			if cp.Kind == catalog.KindMCP {
				r.Tools++
				r.Tokens += Tokens(cp)
			}
		}
		for _, w := range c.Want {
			if slices.Contains(r.Offered, w) {
				rep.WantFound++
			} else {
				r.Missed = append(r.Missed, w)
			}
		}
		for _, o := range r.Offered {
			if !slices.Contains(c.Want, o) && !slices.Contains(c.OK, o) {
				r.Extra = append(r.Extra, o)
			}
		}
		r.Exact = len(r.Missed) == 0 && len(r.Extra) == 0
		rep.Cases++
		rep.WantTotal += len(c.Want)
		rep.FalseOffers += len(r.Extra)
		rep.OfferedTools += r.Tools
		rep.OfferedToks += r.Tokens
		tag := rep.ByTag[c.Tag]
		tag[1]++
		if r.Exact {
			rep.Exact++
			tag[0]++
		}
		rep.ByTag[c.Tag] = tag
		rep.Results = append(rep.Results, r)
	}
	return rep
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// Summary is the report's figures as JSON-friendly numbers.
type Summary struct {
	Cases             int                `json:"cases"`
	ExactRate         float64            `json:"exact_match_rate"`
	ServerRecall      float64            `json:"server_recall"`
	FalseOffers       int                `json:"false_offers"`
	MeanToolsPerTurn  float64            `json:"mean_mcp_tools_per_turn"`
	MeanTokensPerTurn float64            `json:"mean_schema_tokens_per_turn"`
	AllTools          int                `json:"all_mcp_tools"`
	AllTokens         int                `json:"all_mcp_schema_tokens"`
	TokenShare        float64            `json:"schema_token_share"`
	ByTag             map[string]float64 `json:"exact_rate_by_tag"`
}

// Summary computes the headline figures.
func (r Report) Summary() Summary {
	s := Summary{
		Cases: r.Cases, ExactRate: pct(r.Exact, r.Cases), ServerRecall: pct(r.WantFound, r.WantTotal),
		FalseOffers: r.FalseOffers, AllTools: r.MCPTools, AllTokens: r.MCPTokensAll, ByTag: map[string]float64{},
	}
	if r.Cases > 0 {
		s.MeanToolsPerTurn = float64(r.OfferedTools) / float64(r.Cases)
		s.MeanTokensPerTurn = float64(r.OfferedToks) / float64(r.Cases)
	}
	if r.MCPTokensAll > 0 {
		s.TokenShare = 100 * s.MeanTokensPerTurn / float64(r.MCPTokensAll)
	}
	for tag, v := range r.ByTag {
		s.ByTag[tag] = pct(v[0], v[1])
	}
	return s
}

// Write prints the report for a person: the figures, then every case that
// was not exact with the gate's reasons.
func (r Report) Write(w io.Writer) {
	s := r.Summary()
	fmt.Fprintf(w, "cases:                 %d\n", s.Cases)
	fmt.Fprintf(w, "exact match:           %.1f%% (%d/%d)\n", s.ExactRate, r.Exact, r.Cases)
	tags := make([]string, 0, len(r.ByTag))
	for t := range r.ByTag {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	for _, t := range tags {
		v := r.ByTag[t]
		fmt.Fprintf(w, "  %-10s           %.1f%% (%d/%d)\n", t, pct(v[0], v[1]), v[0], v[1])
	}
	fmt.Fprintf(w, "server recall:         %.1f%% (%d/%d)\n", s.ServerRecall, r.WantFound, r.WantTotal)
	fmt.Fprintf(w, "false offers:          %d\n", s.FalseOffers)
	fmt.Fprintf(w, "MCP tools per turn:    %.2f of %d\n", s.MeanToolsPerTurn, s.AllTools)
	fmt.Fprintf(w, "schema tokens per turn: %.0f of %d for all tools (%.1f%%)\n", s.MeanTokensPerTurn, s.AllTokens, s.TokenShare)
	for _, res := range r.Results {
		if res.Exact {
			continue
		}
		fmt.Fprintf(w, "\n%s line %d [%s] %q\n", mark(res), res.Case.Line, res.Case.Tag, res.Case.Text)
		if len(res.Missed) > 0 {
			fmt.Fprintf(w, "  missed: %s\n", strings.Join(res.Missed, ", "))
		}
		if len(res.Extra) > 0 {
			fmt.Fprintf(w, "  extra:  %s\n", strings.Join(res.Extra, ", "))
		}
		for _, srv := range append(append([]string{}, res.Missed...), res.Extra...) {
			fmt.Fprintf(w, "  %s: %s\n", srv, res.Because[srv])
		}
	}
}

func mark(r Result) string {
	if len(r.Missed) > 0 {
		return "MISS"
	}
	return "EXTRA"
}
