package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestMemoryFindsWhatWasSaidLongAgoA6: a fact the owner told on Telegram
// 200 messages ago, long out of the turn's window, is found by
// builtin:memory, which the gate offers because the owner asks what they
// told before; the tool's hits reach the model. The owner finds it too
// with `jarvisbot memory search`, as text and as JSON.
func TestMemoryFindsWhatWasSaidLongAgoA6(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	f.Respond(func(r fakellm.Request) fakellm.Step { return fakellm.Step{Text: "Noted: " + r.LastUser()} })
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")

	const fact = "The spare key for the shed is under the blue flowerpot"
	tg.SendText(42, 42, fact)
	waitSent(t, tg, "the fact's answer", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Noted: "+fact) })
	// 99 more turns: with their answers, 200 messages since the fact, and
	// more than a turn's history holds (~24k tokens). One at a time:
	// messages that wait together are answered in one turn.
	chatter := strings.TrimSpace(strings.Repeat("The weather was grey and the tea was warm, nothing else happened. ", 15))
	for i := range 99 {
		msg := fmt.Sprintf("Filler message number %d: %s", i, chatter)
		tg.SendText(42, 42, msg)
		waitSent(t, tg, "filler's answer", func(s []faketelegram.Sent) bool { return hasText(s[max(0, len(s)-3):], 42, "Noted: "+msg) })
	}

	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:memory"), Input: `{"action":"search","query":"shed key"}`}}},
		fakellm.Step{Text: "You told me: under the blue flowerpot."})
	n := len(f.Requests())
	const question = "What did I tell you about the key for the shed?"
	tg.SendText(42, 42, question)
	waitSent(t, tg, "the answer from memory", func(s []faketelegram.Sent) bool { return hasText(s, 42, "under the blue flowerpot.") })
	// The turn's requests; a long chat's summary may be written meanwhile.
	var reqs []fakellm.Request
	for _, r := range f.Requests()[n:] {
		if slices.ContainsFunc(r.Messages, func(m fakellm.Message) bool { return m.Text == question }) {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("the question took %d model requests, want 2", len(reqs))
	}
	if !slices.Contains(reqs[0].Tools, llm.WireName("builtin:memory")) {
		t.Errorf("the memory was not offered for a question about what was told: %v", reqs[0].Tools)
	}
	for _, m := range reqs[0].Messages {
		if strings.Contains(m.Text, "flowerpot") {
			t.Fatalf("the fact is still in the turn's window, so the test proves nothing: %q", m.Text)
		}
	}
	var result string
	for _, m := range reqs[1].Messages {
		result += strings.Join(m.ToolResults, "\n")
	}
	if !strings.Contains(result, fact) || !strings.Contains(result, "owner") {
		t.Errorf("the memory's hits did not reach the model: %q", result)
	}
	stop()

	code, text, errOut := e.jarvis(t, "", "memory", "search", "spare", "keys")
	if code != 0 || !strings.Contains(text, fact) || !strings.Contains(text, "owner") || !strings.Contains(text, "telegram") {
		t.Errorf("memory search: exit %d\n%s\n%s", code, text, errOut)
	}
	code, text, errOut = e.jarvis(t, "", "memory", "search", "--json", "--limit", "2", "flowerpot")
	var hits []store.RecallHit
	if code != 0 || json.Unmarshal([]byte(text), &hits) != nil || len(hits) != 2 || !slices.ContainsFunc(hits, func(h store.RecallHit) bool {
		return h.Who == "owner" && h.Snippet == fact
	}) {
		t.Errorf("memory search --json: exit %d\n%s\n%s", code, text, errOut)
	}
	if code, text, _ := e.jarvis(t, "", "memory", "search", "submarine"); code != 0 || !strings.Contains(text, "Nothing said matches") {
		t.Errorf("memory search for nothing said: exit %d\n%s", code, text)
	}
	if code, _, errOut := e.jarvis(t, "", "memory", "search", "--since", "last week", "key"); code != 2 || !strings.Contains(errOut, "YYYY-MM-DD") {
		t.Errorf("memory search --since with no date: exit %d\n%s", code, errOut)
	}
	if code, _, _ := e.jarvis(t, "", "memory", "search"); code != 2 {
		t.Errorf("memory search without words: exit %d, want 2", code)
	}
}

// TestServeIndexesEarlierHistoryA6: history stored before the search index
// existed (written behind the store's back, with the progress row as
// migration 0032 leaves it on an old store) is indexed by serve in the
// background, with its progress in the log, and is then found.
func TestServeIndexesEarlierHistoryA6(t *testing.T) {
	e, _, _ := ownerOnTelegram(t)
	if code, _, errOut := e.jarvis(t, "", "memory", "search", "anything"); code != 0 { // creates the store
		t.Fatalf("memory search on a new store: exit %d\n%s", code, errOut)
	}
	raw, err := sql.Open("sqlite", filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 700 {
		text := fmt.Sprintf("an old message, number %d", i)
		if i == 3 {
			text = "The wifi password at the cabin is moosejaw42"
		}
		b, _ := json.Marshal(map[string]string{"role": "user", "text": text})
		if _, err := tx.Exec(`INSERT INTO messages (chat, agent, role, content, created_at) VALUES ('telegram:42', 'default', 'user', ?, ?)`,
			string(b), fmt.Sprintf("2026-03-01T08:%02d:%02d.000000000Z", i/60%60, i%60)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(`UPDATE recall_progress SET below = (SELECT max(id) + 1 FROM messages), indexed = 0, total = (SELECT count(*) FROM messages)`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if _, text, _ := e.jarvis(t, "", "memory", "search", "wifi", "password"); !strings.Contains(text, "Nothing said matches") {
		t.Fatalf("found before serve indexed it:\n%s", text)
	}

	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "earlier messages are searchable now")
	for _, want := range []string{"indexing earlier messages for search", "total=700", "indexed=500"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve's log lacks %q:\n%s", want, out.String())
		}
	}
	stop()
	if code, text, _ := e.jarvis(t, "", "memory", "search", "wifi", "password"); code != 0 || !strings.Contains(text, "moosejaw42") {
		t.Errorf("after serve indexed it: exit %d\n%s", code, text)
	}
}
