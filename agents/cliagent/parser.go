package cliagent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/llm"
)

// maxLine bounds one event line: a tool result the CLI echoes can be
// large, but not without end. Longer lines are skipped whole.
const maxLine = 4 << 20

// parser reads one CLI's event stream. Unknown events are ignored: both
// CLIs add kinds between versions.
type parser struct {
	kind    string
	t       agents.DelegateTurn
	session string // the session id last kept
	log     *slog.Logger
	stderr  tail

	text      string // the final answer: the result, else the last message
	done      bool   // a result (Claude Code) or turn.completed (Codex) came
	failed    string // the CLI reported the turn failed, with this message
	lastError string // the last error event, for a CLI that then exits
	setErr    error
	usage     llm.Usage // the turn's tokens, as the CLI reported them
	model     string    // the model the CLI named
}

// read parses lines until r ends. A line too long is dropped.
func (p *parser) read(ctx context.Context, r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	skipping := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !skipping {
			if len(line)+len(chunk) > maxLine {
				skipping, line = true, line[:0]
				p.log.Warn("a CLI event line is too long; skipped", "cli", p.kind, "limit", maxLine)
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !skipping && len(line) > 0 {
			p.line(ctx, line)
		}
		line, skipping = line[:0], false
		if err != nil {
			return
		}
	}
}

// line handles one event.
func (p *parser) line(ctx context.Context, b []byte) {
	var ev map[string]json.RawMessage
	if json.Unmarshal(b, &ev) != nil {
		return // not an event: a CLI may print a stray line
	}
	if p.kind == Codex {
		p.codex(ctx, ev)
	} else {
		p.claude(ctx, ev)
	}
}

func str(ev map[string]json.RawMessage, key string) string {
	var s string
	_ = json.Unmarshal(ev[key], &s) // absent or not a string: ""
	return s
}

// keep records the CLI's session id for the chat's next turn.
func (p *parser) keep(ctx context.Context, id string) {
	if id == "" || id == p.session || p.t.SetSession == nil {
		return
	}
	p.session = id
	if err := p.t.SetSession(ctx, id); err != nil {
		p.setErr = err
	}
}

// claude reads Claude Code's stream-json: system/init (the session id and
// the MCP servers' status), assistant messages, user tool results, and
// the result that ends the turn.
func (p *parser) claude(ctx context.Context, ev map[string]json.RawMessage) {
	switch str(ev, "type") {
	case "system":
		if str(ev, "subtype") != "init" {
			return
		}
		p.keep(ctx, str(ev, "session_id"))
		p.model = str(ev, "model")
		var servers []struct{ Name, Status string }
		_ = json.Unmarshal(ev["mcp_servers"], &servers) // absent: nothing to check
		for _, s := range servers {
			if s.Name == serverName && s.Status != "connected" {
				p.log.Warn("claude could not reach the session's MCP server", "status", s.Status)
			}
		}
	case "assistant":
		var m struct {
			Content []struct{ Type, Text string } `json:"content"`
		}
		_ = json.Unmarshal(ev["message"], &m) // not a message: no text
		var parts []string
		for _, c := range m.Content {
			if c.Type == "text" && strings.TrimSpace(c.Text) != "" {
				parts = append(parts, c.Text)
			}
		}
		if len(parts) > 0 {
			p.text = strings.Join(parts, "\n")
		}
	case "result":
		p.keep(ctx, str(ev, "session_id"))
		p.done = true
		// The whole turn's tokens, the Messages API's counts summed.
		var u struct {
			Input      int `json:"input_tokens"`
			Output     int `json:"output_tokens"`
			CacheRead  int `json:"cache_read_input_tokens"`
			CacheWrite int `json:"cache_creation_input_tokens"`
		}
		if json.Unmarshal(ev["usage"], &u) == nil {
			p.usage = llm.Usage{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite}
		}
		var isErr bool
		_ = json.Unmarshal(ev["is_error"], &isErr) // absent: false
		res := str(ev, "result")
		if isErr || (str(ev, "subtype") != "" && str(ev, "subtype") != "success") {
			p.failed = res
			if p.failed == "" {
				p.failed = str(ev, "subtype")
			}
			return
		}
		if res != "" {
			p.text = res
		}
	}
}

// codex reads Codex's JSONL: thread.started (the session id), items
// (agent_message is the model's text), turn.completed, and turn.failed or
// error events.
func (p *parser) codex(ctx context.Context, ev map[string]json.RawMessage) {
	switch str(ev, "type") {
	case "thread.started":
		p.keep(ctx, str(ev, "thread_id"))
	case "item.completed":
		var it struct{ Type, Text string }
		_ = json.Unmarshal(ev["item"], &it) // not an item: nothing
		if it.Type == "agent_message" && strings.TrimSpace(it.Text) != "" {
			p.text = it.Text
		}
	case "turn.completed":
		p.done = true
		// The turn's tokens as the Responses API counts them: cached input
		// is part of the input, as with Chat Completions.
		var u struct {
			Input     int `json:"input_tokens"`
			CacheRead int `json:"cached_input_tokens"`
			Output    int `json:"output_tokens"`
		}
		if json.Unmarshal(ev["usage"], &u) == nil {
			p.usage = llm.Usage{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead}
		}
	case "turn.failed":
		var e struct{ Message string }
		_ = json.Unmarshal(ev["error"], &e)
		p.done, p.failed = true, e.Message
		if p.failed == "" {
			p.failed = "the turn failed"
		}
	case "error":
		if m := str(ev, "message"); m != "" {
			p.lastError = m
		}
	}
}

// result is the turn's outcome once the CLI exited cleanly.
func (p *parser) result() (agents.DelegateResult, error) {
	cli := defaultCommand(p.kind)
	switch {
	case p.setErr != nil:
		return agents.DelegateResult{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: cannot keep its session id for the next turn: %w", p.kind, p.setErr)
	case p.failed != "":
		return agents.DelegateResult{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s reported the turn failed: %s", cli, p.failed)
	case !p.done:
		return agents.DelegateResult{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s ended without finishing the turn%s", cli, p.stderr.suffixOr(p.lastError))
	}
	return agents.DelegateResult{Text: p.text, Usage: p.usage, Provider: p.kind, Model: p.model}, nil
}
