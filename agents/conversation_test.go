package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// summariser answers the runtime's summary requests as a model would in
// one respect the test can check: the new summary tells what the old one
// and the messages told (the landlord's name, which message numbers were
// read). Turns are answered "Noted N.".
func summariser(f *fakellm.Server) {
	number := regexp.MustCompile(`Message (\d+):`)
	f.Respond(func(r fakellm.Request) fakellm.Step {
		last := r.Messages[len(r.Messages)-1].Text
		if !strings.Contains(r.System, "running summary") {
			if m := number.FindStringSubmatch(last); m != nil {
				return fakellm.Step{Text: "Noted " + m[1] + "."}
			}
			return fakellm.Step{Text: "Noted."}
		}
		var b strings.Builder
		b.WriteString("Summary.")
		if strings.Contains(last, "Okafor") {
			b.WriteString(" The landlord is Mr Okafor.")
		}
		if m := number.FindAllStringSubmatch(last, -1); len(m) > 0 {
			fmt.Fprintf(&b, " Read up to message %s.", m[len(m)-1][1])
		}
		return fakellm.Step{Text: b.String()}
	})
}

// TestLongChatKeepsASummaryA6: over a 300-message chat whose history far
// outgrows the window, the oldest turns are told into a running summary
// (rewritten now and then, not every turn), a fact from the first message
// is still in it at the end, every turn's cached prefix (system prompt and
// tools) is byte-identical, the summary follows it, and the window holds
// only messages the summary does not cover.
func TestLongChatKeepsASummaryA6(t *testing.T) {
	e := newEnv(t, "anthropic")
	e.rt.Conversations = e.db
	e.rt.Usage = e.db
	e.rt.HistoryTokens = 1500
	summariser(e.llm)
	filler := strings.Repeat("about the flat, the heating and the bills ", 4)
	const turns = 150
	for i := range turns {
		text := fmt.Sprintf("Message %d: %s", i, filler)
		if i == 0 {
			text = "Message 0: my landlord is called Mr Okafor. " + filler
		}
		if r := e.turn(t, text); r.Text != fmt.Sprintf("Noted %d.", i) {
			t.Fatalf("turn %d answered %q", i, r.Text)
		}
		e.rt.bg.wait() // the summary after this turn, if one is due
	}

	type body struct {
		System []json.RawMessage `json:"system"`
		Tools  []json.RawMessage `json:"tools"`
	}
	var first body
	var turnReqs, summaries int
	for _, r := range e.llm.Requests() {
		if strings.Contains(r.System, "running summary") {
			summaries++
			continue
		}
		var b body
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if turnReqs++; turnReqs == 1 {
			first = b
			continue
		}
		if len(b.System) == 0 || string(b.System[0]) != string(first.System[0]) || len(b.Tools) != len(first.Tools) {
			t.Fatalf("turn %d: the cached system block or the tool list changed", turnReqs)
		}
		for i := range b.Tools {
			if string(b.Tools[i]) != string(first.Tools[i]) {
				t.Fatalf("turn %d: tool %d changed", turnReqs, i)
			}
		}
	}
	if turnReqs != turns {
		t.Errorf("%d turn requests, want %d", turnReqs, turns)
	}
	if summaries < 3 || summaries > turns/5 {
		t.Errorf("%d summaries over %d turns: want them rewritten now and then, not every turn", summaries, turns)
	}

	conv, err := e.db.Conversation(context.Background(), "console", "default")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(conv.Summary, "Mr Okafor") || conv.Covered == 0 {
		t.Fatalf("the summary lost the first message's fact: %+v", conv)
	}
	reqs := e.llm.Requests()
	last := reqs[len(reqs)-1]
	for i := len(reqs) - 1; strings.Contains(last.System, "running summary"); i-- {
		last = reqs[i-1]
	}
	if !strings.Contains(last.System, "Earlier in this conversation") || !strings.Contains(last.System, "Mr Okafor") {
		t.Errorf("the last turn was not given the summary:\n%s", last.System)
	}
	var lastBody body
	json.Unmarshal(last.Body, &lastBody)
	if len(lastBody.System) != 2 || strings.Contains(string(lastBody.System[1]), "cache_control") {
		t.Errorf("the summary is not a block of its own after the cached one: %s", lastBody.System)
	}
	// The window begins after what the summary covers, at the owner's
	// message, and fits the budget.
	window := last.Messages
	if len(window) == 0 || window[0].Role != "user" || !strings.HasPrefix(window[0].Text, "Message ") {
		t.Fatalf("the window does not begin at an owner's message: %+v", window)
	}
	var told int
	fmt.Sscanf(conv.Summary[strings.Index(conv.Summary, "Read up to message "):], "Read up to message %d.", &told)
	var firstSeen int
	fmt.Sscanf(window[0].Text, "Message %d:", &firstSeen)
	if firstSeen != told+1 {
		t.Errorf("the window begins at message %d, the summary tells up to %d: nothing may fall between", firstSeen, told)
	}

	calls, err := e.db.ModelCallsSince(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var bySummary int
	for _, c := range calls {
		if c.Source == SourceSummary {
			bySummary++
		}
	}
	if bySummary != summaries {
		t.Errorf("%d model calls recorded as summaries, want %d", bySummary, summaries)
	}
}

// TestSummaryFailureKeepsThePlainWindowA6: a model that fails to write the
// summary costs nothing but the summary: the turns go on with the newest
// messages, no summary is kept, and it is tried again only a quarter of an
// hour later, not after every turn.
func TestSummaryFailureKeepsThePlainWindowA6(t *testing.T) {
	e := newEnv(t, "openai")
	e.rt.Conversations = e.db
	e.rt.HistoryTokens = 300
	e.llm.Respond(func(r fakellm.Request) fakellm.Step {
		if strings.Contains(r.System, "running summary") {
			return fakellm.Step{Status: 400, Text: "this model cannot summarise"}
		}
		return fakellm.Step{Text: "Noted."}
	})
	for i := range 40 {
		e.turn(t, fmt.Sprintf("Message %d: %s", i, strings.Repeat("words about the garden ", 5)))
		e.rt.bg.wait()
	}
	conv, err := e.db.Conversation(context.Background(), "console", "default")
	if err != nil || conv.Summary != "" {
		t.Fatalf("a failed summary was kept: %+v %v", conv, err)
	}
	tried := func() (n int, lastTurn fakellm.Request) {
		for _, r := range e.llm.Requests() {
			if strings.Contains(r.System, "running summary") {
				n++
			} else {
				lastTurn = r
			}
		}
		return n, lastTurn
	}
	n, last := tried()
	if n != 1 {
		t.Fatalf("%d summaries asked for within a quarter of an hour, want 1", n)
	}
	if tokens := len(last.Messages); tokens < 2 || !strings.HasPrefix(last.Messages[len(last.Messages)-1].Text, "Message 39:") {
		t.Errorf("the last turn did not get its window: %+v", last.Messages)
	}
	e.clk.Advance(16 * time.Minute)
	e.turn(t, "Message 40: and the roses")
	e.rt.bg.wait()
	if n, _ = tried(); n != 2 {
		t.Errorf("%d summaries asked for after a quarter of an hour, want 2", n)
	}
}

// TestNewConversationEmptiesTheWindowA6: after /new a turn sees only what
// was said since; the chat's earlier messages stay stored.
func TestNewConversationEmptiesTheWindowA6(t *testing.T) {
	e := newEnv(t, "anthropic")
	e.rt.Conversations = e.db
	e.llm.Respond(func(fakellm.Request) fakellm.Step { return fakellm.Step{Text: "Noted."} })
	e.turn(t, "my landlord is called Mr Okafor")
	if _, err := e.db.NewConversation(context.Background(), "console", "default", e.clk.Now()); err != nil {
		t.Fatal(err)
	}
	w, err := e.rt.Window(context.Background(), "console", "default")
	if err != nil || w.Messages != 0 || w.Tokens != 0 || w.Conversation.BegunAt.IsZero() {
		t.Fatalf("the window after /new: %+v %v", w, err)
	}
	e.turn(t, "what is my landlord called?")
	reqs := e.llm.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Text, "Okafor") {
			t.Fatalf("the new conversation still sees the old one: %+v", reqs[len(reqs)-1].Messages)
		}
	}
	if all, _ := e.db.History(context.Background(), "console", 10); len(all) != 4 {
		t.Errorf("the chat keeps %d messages, want all 4", len(all))
	}
	if w, _ = e.rt.Window(context.Background(), "console", "default"); w.Messages != 2 || w.Budget != defaultHistory {
		t.Errorf("the window after one more turn: %+v", w)
	}
}
