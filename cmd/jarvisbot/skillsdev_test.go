package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

type skillCase struct {
	Text string  `json:"text"`
	Want *string `json:"want"`
	Tag  string  `json:"tag"`
}

func readSkillCases(t *testing.T, name string) []skillCase {
	t.Helper()
	f, err := os.Open(fixtures.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []skillCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c skillCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no cases: a test over it would check nothing", name)
	}
	return out
}

// TestSkillsDevS3: with every store plugin connected, the first skill that
// takes over or joins belongs to the wanted plugin (or no skill enters for
// want null). Keyword and negative rows must all pass; the paraphrase rate
// is reported.
func TestSkillsDevS3(t *testing.T) {
	para, paraOK := skillsDev(t, "skills-dev.jsonl", false)
	t.Logf("paraphrase rate: %d/%d", paraOK, para)
}

// TestSkillsDev2S3: the second development set (issue 15): keyword rows
// must all pass and no skill takes over small talk or arithmetic; the
// paraphrase rate is reported. A tool-using skill that joins a negative row
// is logged: "time" from a tool name is the everyday-word part of issue
// 15, not paraphrase.
func TestSkillsDev2S3(t *testing.T) {
	para, paraOK := skillsDev(t, "skills-dev2.jsonl", true)
	t.Logf("paraphrase rate: %d/%d", paraOK, para)
}

// skillsDev routes every row of a skills set and checks it; with
// takeOverOnly, a negative row fails only when a skill takes the turn
// over. It returns the paraphrase rows and how many of them passed.
func skillsDev(t *testing.T, set string, takeOverOnly bool) (para, paraOK int) {
	cases := readSkillCases(t, set)
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.Text + "\n")
	}
	e := newTestEnv(t)
	code, out, errOut := e.jarvis(t, in.String(), "route", "--connect-all", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	routes := decodeRoutes(t, out)
	if len(routes) != len(cases) {
		t.Fatalf("%d answers for %d messages", len(routes), len(cases))
	}
	for i, c := range cases {
		got := "" // the plugin of the first entering skill, "-" for a general skill
		takeOver := ""
		for _, s := range routes[i].Skills {
			if s.Entry == "take-over" && takeOver == "" {
				takeOver = s.ID
			}
			if (s.Entry == "take-over" || s.Entry == "join") && got == "" {
				got = "-"
				if s.Plugin != nil {
					got = *s.Plugin
				}
			}
		}
		want := ""
		if c.Want != nil {
			want = *c.Want
		}
		ok := got == want
		switch {
		case c.Tag == "para":
			para++
			if ok {
				paraOK++
			} else {
				t.Logf("paraphrase missed: %q: first entering skill of %q, want %q", c.Text, got, want)
			}
		case takeOverOnly && want == "":
			if takeOver != "" {
				t.Errorf("[%s] %q: %s takes the turn over", c.Tag, c.Text, takeOver)
			} else if !ok {
				t.Logf("[%s] %q: a skill of %q joins", c.Tag, c.Text, got)
			}
		case !ok:
			t.Errorf("[%s] %q: first entering skill of %q, want %q (skills %+v)", c.Tag, c.Text, got, want, routes[i].Skills)
		}
	}
	return para, paraOK
}

// TestEvalGateWithManuals: the gate's dev sets still pass with the store's
// manuals as the usage cards of their plugins' servers, and a paraphrase
// finds its server through the manual.
func TestEvalGateWithManuals(t *testing.T) {
	e := newTestEnv(t)
	type summary struct {
		Cases  int     `json:"cases"`
		Exact  float64 `json:"exact_match_rate"`
		Recall float64 `json:"server_recall"`
		False  int     `json:"false_offers"`
	}
	run := func(set, snap string) summary {
		code, out, errOut := e.jarvis(t, "", "eval", "gate", fixtures.Path(t, set), "--catalog", fixtures.Path(t, snap), "--json")
		if code != 0 {
			t.Fatalf("eval %s: exit %d: %s", set, code, errOut)
		}
		var s summary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := run("gate-dev.jsonl", "catalog-seed.json"); s.Exact < 100 || s.False != 0 {
		t.Errorf("seed set with manuals: %+v", s)
	}
	// 17 servers, 294 tools: one request touches two servers (a folder of
	// documents, local or in the cloud); everything else is exact.
	if s := run("gate-extended-dev.jsonl", "catalog-extended.json"); s.Exact < 95 || s.False > 1 {
		t.Errorf("extended set with manuals: %+v", s)
	}
	// Everyday phrasing over the same servers (C5): what the gate misses
	// is left to the way back (C8); it offers nothing it should not.
	if s := run("gate-extended-dev2.jsonl", "catalog-extended.json"); s.Exact < 90 || s.Recall < 85 || s.False != 0 {
		t.Errorf("everyday phrasing with manuals: %+v", s)
	}
	code, out, _ := e.jarvis(t, "", "route", "--json", "--catalog", fixtures.Path(t, "catalog-extended.json"), "Is Thursday evening still free for me?")
	if code != 0 {
		t.Fatal(out)
	}
	r := decodeRoutes(t, out)[0]
	calendar := false
	for _, m := range r.MCP {
		if m.Server == "google-calendar" {
			calendar = true
			if !m.Offered || !strings.Contains(m.Because, "manual") {
				t.Errorf("calendar for a paraphrase: %+v", m)
			}
		}
		if m.Server != "google-calendar" && m.Offered {
			t.Errorf("%s offered for a calendar paraphrase: %s", m.Server, m.Because)
		}
	}
	if !calendar {
		t.Errorf("route says nothing about google-calendar for a calendar paraphrase: %+v", r.MCP)
	}
}
