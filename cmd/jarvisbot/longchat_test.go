package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// TestLongChatOnTelegramKeepsASummaryA6: a 300-message chat on Telegram
// outgrows the window many times over; the agent's model keeps a running
// summary that still holds the first message's fact, every turn's cached
// system prompt and tool list are byte-identical, and /history says a
// summary tells what came before.
func TestLongChatOnTelegramKeepsASummaryA6(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	f.Respond(func(r fakellm.Request) fakellm.Step {
		last := r.Messages[len(r.Messages)-1].Text
		if strings.Contains(r.System, "running summary") {
			text := "Summary of the chat."
			if strings.Contains(last, "Okafor") {
				text += " The landlord is Mr Okafor."
			}
			return fakellm.Step{Text: text}
		}
		return fakellm.Step{Text: "Noted."}
	})
	out, stopServe := startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")

	filler := strings.Repeat("about the flat, the heating, the bills and the neighbours upstairs ", 12)
	const turns = 150
	for i := range turns {
		text := fmt.Sprintf("Message %d: %s", i, filler)
		if i == 0 {
			text = "Message 0: my landlord is called Mr Okafor. " + filler
		}
		tg.SendText(42, 42, text)
		n := i + 1
		waitSent(t, tg, fmt.Sprintf("answer %d", n), func(s []faketelegram.Sent) bool {
			c := 0
			for _, m := range s {
				if m.ChatID == 42 && m.Method == "sendMessage" && m.Text == "Noted." {
					c++
				}
			}
			return c >= n
		})
	}
	type body struct {
		System []json.RawMessage `json:"system"`
		Tools  []json.RawMessage `json:"tools"`
	}
	var first *body
	var summaries, withSummary int
	for _, r := range f.Requests() {
		if strings.Contains(r.System, "running summary") {
			summaries++
			continue
		}
		var b body
		if err := json.Unmarshal(r.Body, &b); err != nil || len(b.System) == 0 {
			t.Fatalf("a turn's request: %v", err)
		}
		if first == nil {
			first = &b
			continue
		}
		if string(b.System[0]) != string(first.System[0]) || len(b.Tools) != len(first.Tools) {
			t.Fatal("a turn's cached system prompt or tool list changed")
		}
		for i := range b.Tools {
			if string(b.Tools[i]) != string(first.Tools[i]) {
				t.Fatalf("tool %d changed", i)
			}
		}
		if strings.Contains(r.System, "The landlord is Mr Okafor.") {
			withSummary++
		}
	}
	if summaries == 0 || summaries > turns/5 || withSummary == 0 {
		t.Errorf("%d summaries written, %d turns given one: want a few, not one a turn", summaries, withSummary)
	}
	tg.SendText(42, 42, "/history")
	waitSent(t, tg, "/history", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, "What was said before is told by a summary written")
	})
}
