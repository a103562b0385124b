package jobs

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// AgentLister lists the agents a job may go to (store.Agents).
type AgentLister interface {
	Agents(ctx context.Context) ([]store.Agent, error)
}

// Chooser picks the agent for a job's text with no model call (M4), by
// the scoring that focus (C6) and skills (S3) already use: the MCP servers
// and built-in plugins the gate would offer for the text, counted for each
// agent whose focus covers them, and the skills that match the text and
// are the agent's own (or the manual of a plugin its focus covers). The
// best score wins, ties by name; with no score, the default agent.
type Chooser struct {
	Agents  AgentLister
	Catalog func() *catalog.View
	// Skills returns the ranker over an agent's enabled skills (as the
	// runtime's); nil means skills do not count.
	Skills func(ctx context.Context, agent string) (*skills.Ranker, error)
	// DataDir holds the agents' own skills (skills.AgentDir): a matched
	// skill under an agent's folder counts for that agent.
	DataDir string
	// Named, when set, returns the plugins of the store a text names,
	// installed or not (collection.Named): a job reaches the agent whose
	// focus has such a plugin before it is connected, as agents add gave
	// it that focus.
	Named func(text string) []string
}

// Choice is the chosen agent and why, in one sentence naming the evidence.
type Choice struct {
	Agent string
	Why   string
	// Score is the chosen agent's score: each server counts its gate score
	// over catalog.OfferAt, each skill its score over skills.EnterAt, so
	// either reaches 1 where it would enter a turn.
	Score float64
}

// candidate is one agent's score and the evidence for it, strongest first.
type candidate struct {
	name     string
	score    float64
	evidence []evidence
}

type evidence struct {
	weight float64
	text   string
}

// Choose picks the agent for text.
func (c *Chooser) Choose(ctx context.Context, text string) (Choice, error) {
	list, err := c.Agents.Agents(ctx)
	if err != nil {
		return Choice{}, fmt.Errorf("choosing an agent for the job: %w", err)
	}
	v := c.Catalog()
	// The servers the text points at: what the gate would offer, or offer
	// once connected (evident), with the words that point.
	type pointed struct {
		server string
		score  int
		words  []string
	}
	var points []pointed
	for _, d := range v.Gate().Check(text, nil) {
		if !d.Offered && !d.Evident() {
			continue
		}
		p := pointed{server: d.Server, score: d.Score}
		for _, e := range d.Evidence() {
			// A word within one named already ("pull" in "pull request")
			// says nothing more.
			if len(p.words) < 3 && !slices.ContainsFunc(p.words, func(w string) bool { return strings.Contains(w, e.Word) }) {
				p.words = append(p.words, e.Word)
			}
		}
		points = append(points, p)
	}
	var named []string
	if c.Named != nil {
		named = c.Named(text)
	}
	cands := make([]candidate, 0, len(list))
	for _, ag := range list {
		cd := candidate{name: ag.Name}
		for _, p := range points {
			pat := covering(ag.Focus, "mcp:"+p.server+"/*", p.server)
			if pat == "" {
				continue
			}
			w := float64(p.score) / catalog.OfferAt
			cd.score += w
			cd.evidence = append(cd.evidence, evidence{w, fmt.Sprintf("focus %s covers %s, which %s point at", pat, p.server, quoteWords(p.words))})
		}
		c.storeEvidence(v, ag, named, &cd)
		if err := c.skillEvidence(ctx, ag, text, &cd); err != nil {
			return Choice{}, err
		}
		if cd.score > 0 {
			slices.SortStableFunc(cd.evidence, func(a, b evidence) int { return cmp.Compare(b.weight, a.weight) })
			cands = append(cands, cd)
		}
	}
	if len(cands) == 0 {
		var servers []string
		for _, p := range points {
			servers = append(servers, p.server)
		}
		return Choice{Agent: store.DefaultAgent, Why: noneWhy(servers)}, nil
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.name, b.name))
	})
	best := cands[0]
	var parts []string
	for _, e := range best.evidence {
		parts = append(parts, e.text)
	}
	why := fmt.Sprintf("%s: %s", best.name, strings.Join(parts, "; "))
	if len(cands) > 1 {
		if cands[1].score == best.score {
			why += fmt.Sprintf(" (tied with %s; the first by name takes it)", cands[1].name)
		} else {
			why += fmt.Sprintf(" (next: %s, %.1f against %.1f)", cands[1].name, cands[1].score, best.score)
		}
	}
	return Choice{Agent: best.name, Why: why, Score: best.score}, nil
}

// storeEvidence counts the store's plugins the text names that are not
// connected now and that the agent's focus has: each as much as a server
// the gate would just offer, and the reason says the plugin is missing.
func (c *Chooser) storeEvidence(v *catalog.View, ag store.Agent, named []string, cd *candidate) {
	for _, p := range named {
		if srv, ok := v.Server(p); ok && srv.Connected {
			continue // the gate's evidence counted it
		}
		if cp, ok := v.Capability("plugin:" + p); ok && cp.Connected {
			continue
		}
		pat := covering(ag.Focus, "plugin:"+p, p)
		if pat == "" {
			continue
		}
		cd.score++
		cd.evidence = append(cd.evidence, evidence{1, fmt.Sprintf("focus %s fits the job, but %s is not connected: install it or sign in (jarvisbot plugins install %s)", pat, p, p)})
	}
}

// skillEvidence adds the skills that match text and are the agent's own,
// or the manual of a plugin its focus covers.
func (c *Chooser) skillEvidence(ctx context.Context, ag store.Agent, text string, cd *candidate) error {
	if c.Skills == nil {
		return nil
	}
	rk, err := c.Skills(ctx, ag.Name)
	if err != nil {
		return fmt.Errorf("choosing an agent for the job: reading the skills of %s: %w", ag.Name, err)
	}
	if rk == nil {
		return nil
	}
	own := ""
	if c.DataDir != "" {
		if d := skills.AgentDir(c.DataDir, ag.Name); d.Err() == nil {
			own = d.Path()
		}
	}
	for _, m := range rk.Rank(text, nil) {
		if m.Entry != skills.EntryTakeOver && m.Entry != skills.EntryJoin {
			continue
		}
		w := m.Score / skills.EnterAt
		switch {
		case own != "" && within(m.Skill.Dir, own):
			cd.score += w
			cd.evidence = append(cd.evidence, evidence{w, fmt.Sprintf("its own skill %s matches the text (%.1f)", m.Skill.Name, m.Score)})
		case m.Skill.Plugin != "":
			if pat := covering(ag.Focus, "plugin:"+m.Skill.Plugin, m.Skill.Plugin); pat != "" {
				cd.score += w
				cd.evidence = append(cd.evidence, evidence{w, fmt.Sprintf("focus %s covers plugin %s, whose manual matches the text (%.1f)", pat, m.Skill.Plugin, m.Score)})
			}
		}
	}
	return nil
}

// covering returns the first of the patterns that covers the capability
// id (or server), "" when none does.
func covering(patterns []string, id, server string) string {
	for _, p := range patterns {
		if catalog.Covers([]string{p}, id, server) {
			return p
		}
	}
	return ""
}

// within reports whether dir is inside root.
func within(dir, root string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

func quoteWords(ws []string) string {
	if len(ws) == 0 {
		return "its words"
	}
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = fmt.Sprintf("%q", w)
	}
	if len(q) == 1 {
		return "the word " + q[0]
	}
	return "the words " + strings.Join(q, ", ")
}

// noneWhy says why the default agent takes a job no agent's focus covers,
// naming what the text points at, if anything.
func noneWhy(servers []string) string {
	if len(servers) == 0 {
		return "no words of the text point at a service any agent's focus covers, and no agent's own skill matches it, so the default agent takes it"
	}
	return fmt.Sprintf("the text points at %s, which no agent's focus covers, and no agent's own skill matches it, so the default agent takes it", strings.Join(servers, ", "))
}
