package app

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// A chain of providers (provider: as a list) is built anew for every
// turn, like every model; which of its links serves, and when its
// primary was last tried, must outlive the turn, or every turn would
// start on a primary that is down and tell the owner again. failovers
// keeps that health for the running service, one per chain: agents on
// the same chain share it, so the owner hears of a switch once.

type failovers struct {
	clock clock.Clock
	tell  func(ctx context.Context, text string)
	mu    sync.Mutex
	byKey map[string]*llm.Failover
}

func newFailovers(c clock.Clock, tell func(ctx context.Context, text string)) *failovers {
	return &failovers{clock: c, tell: tell, byKey: map[string]*llm.Failover{}}
}

// of is the health of ch's chain, kept by what each link is (provider,
// model, address; never its key); nil keeps nothing: a fresh health.
func (fo *failovers) of(ch llm.Choice) *llm.Failover {
	if fo == nil || len(ch.Fallbacks) == 0 {
		var c clock.Clock
		if fo != nil {
			c = fo.clock
		}
		return &llm.Failover{Clock: c}
	}
	links := []string{linkKey(ch.Config)}
	for _, l := range ch.Fallbacks {
		links = append(links, linkKey(l.Config))
	}
	key := strings.Join(links, "\n")
	fo.mu.Lock()
	defer fo.mu.Unlock()
	f, ok := fo.byKey[key]
	if !ok {
		f = &llm.Failover{Clock: fo.clock, Tell: fo.tell}
		fo.byKey[key] = f
	}
	return f
}

func linkKey(c llm.Config) string {
	return c.Provider + " " + c.Model + " " + c.BaseURL
}

// tellFailover tells the owner that a fallback took over or the primary
// is back: in the main chat once the session is up, and in the log, as a
// warning while there is no chat to tell.
func (s *Service) tellFailover(ctx context.Context, text string) {
	if s.notice == nil {
		s.log.Warn(text)
		return
	}
	s.log.Info(text)
	s.notice(ctx, text)
}

// ModelChain is the models an agent's turns run on: the primary first,
// then its fallbacks, and which of them serves now.
type ModelChain struct {
	// Links name each provider and model ("anthropic claude-sonnet-4-5");
	// a coding CLI is its one link, by its name.
	Links []string
	// Serving is the index of the link that answers now (0: the primary);
	// while a fallback serves, Reason says why the primary was left
	// ("529 overloaded") and Since when.
	Serving int
	Reason  string
	Since   time.Time
}

// ModelChain says which models an agent's turns run on and which serves
// now, as the running service's turns see it.
func (s *Service) ModelChain(ctx context.Context, agentName string) (ModelChain, error) {
	ag, err := s.DB.Agent(ctx, agentName)
	if err != nil {
		return ModelChain{}, err
	}
	ch, err := s.env.ChooseFor(ctx, s.Config, ag)
	if err != nil {
		return ModelChain{}, err
	}
	if ch.CLI != "" {
		return ModelChain{Links: []string{ch.CLI}}, nil
	}
	mc := ModelChain{Links: []string{ch.Config.Provider + " " + ch.Config.Model}}
	for _, l := range ch.Fallbacks {
		mc.Links = append(mc.Links, l.Config.Provider+" "+l.Config.Model)
	}
	if len(ch.Fallbacks) > 0 {
		st := s.failovers.of(ch).Serving()
		mc.Serving, mc.Reason, mc.Since = st.Link, st.Reason, st.Since
	}
	return mc, nil
}
