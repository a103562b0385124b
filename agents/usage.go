package agents

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/store"
)

// UsageRecorder keeps the record of model calls (store.ModelCalls).
type UsageRecorder interface {
	RecordModelCall(ctx context.Context, c store.ModelCall) error
}

// Sources of a turn, as the usage record names them.
const (
	SourceChat     = "chat"
	SourceSchedule = "schedule:" // + the skill
	SourceApp      = "app:"      // + the app
)

// Source says what caused a turn: a scheduled skill's run, an app's job
// or chat, else the owner's message.
func (in Input) Source() string {
	switch {
	case in.summary:
		return SourceSummary
	case in.Schedule != "":
		return SourceSchedule + in.Schedule
	case in.App != "":
		return SourceApp + in.App
	}
	return SourceChat
}

// schemaTokens estimates what offering tools costs in tokens, as the
// history is estimated: bytes over four.
func schemaTokens(bytes int) int { return (bytes + 3) / 4 }

// recordCall keeps one model call's figures. A record that cannot be
// written is logged: the turn goes on, the owner's answer matters more
// than its count.
func (r *Runtime) recordCall(ctx context.Context, st *turnState, resp llm.Response, err error, took time.Duration) {
	if r.Usage == nil {
		return
	}
	c := store.ModelCall{
		At: r.now(), Agent: st.agent, Source: st.in.Source(), Chat: st.in.Chat,
		Provider: resp.Provider, Model: resp.Model,
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
		CacheReadTokens: resp.Usage.CacheReadTokens, CacheWriteTokens: resp.Usage.CacheWriteTokens,
		Duration: took, Outcome: "ok",
	}
	if err != nil {
		c.Outcome = "error: " + err.Error()
	}
	if c.Provider == "" { // no answer said who
		who, isWho := st.model.Delegate.(interface{ Who() (string, string) })
		switch {
		case st.model.Provider != nil:
			c.Provider, c.Model = llm.Who(st.model.Provider)
		case isWho:
			c.Provider, c.Model = who.Who()
		}
	}
	// Both figures measure capabilities alike (SchemaBytes), so the sent
	// list is never larger than the granted one it is a part of.
	st.mu.Lock() // a delegate's calls may add tools concurrently
	c.ToolsSent = len(st.req.Tools)
	n := 0
	for _, t := range st.req.Tools {
		if cp, ok := st.offered.byWire[t.Name]; ok {
			n += cp.SchemaBytes()
		} else {
			n += len(t.Name) + len(t.Description) + len(t.Schema)
		}
	}
	c.ToolTokens = schemaTokens(n)
	if st.plan != nil {
		c.CatalogTokens = schemaTokens(st.plan.GrantedSchemaBytes())
	}
	st.mu.Unlock()
	// The turn may be ending (a cancel): the record still belongs to it.
	if err := r.Usage.RecordModelCall(context.WithoutCancel(ctx), c); err != nil {
		r.log().Warn("recording a model call", "agent", st.agent, "chat", st.in.Chat, "err", err)
	}
}
