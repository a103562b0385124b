package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/store"
)

// A long chat (A6): a turn sends the conversation's newest messages word
// for word within the history budget W (HistoryTokens). When what the
// running summary does not cover yet outgrows nine tenths of W, the oldest
// of it is told into the summary by the agent's model, in the background
// after the turn, keeping the newest six tenths of W word for word. So
// the summary is rewritten once every third of W of talk, not every turn,
// and nothing falls between the summary and the window while it keeps up.
// The summary goes after the cached prefix (SystemExtra): the system
// prompt and the tools stay byte-identical from turn to turn.
const (
	summariseAbove = 9 // tenths of W
	keepVerbatim   = 6 // tenths of W
	// retryAfter spaces the attempts after a failed summary, so a model
	// that cannot write one does not cost a call after every turn.
	retryAfter = 15 * time.Minute
	// maxSummaryBytes caps the summary (~1,500 tokens): what does not fit
	// is left to the search of what was said.
	maxSummaryBytes = 6000
	// maxSummarised bounds one summary's reading: a chat that grew long
	// before summaries existed gets its newest fallen-out part told, the
	// rest stays stored and searchable.
	maxSummarised = 2000
)

// SourceSummary is the usage record's source of a model call that
// rewrote a conversation's summary.
const SourceSummary = "summary"

func (r *Runtime) historyBudget() int {
	if r.HistoryTokens > 0 {
		return r.HistoryTokens
	}
	return defaultHistory
}

// conversation is the agent's current conversation in the chat; without
// a Conversations store, each runs from the chat's first message.
func (r *Runtime) conversation(ctx context.Context, chat, agent string) (store.Conversation, error) {
	if r.Conversations == nil {
		return store.Conversation{Chat: chat, Agent: agent}, nil
	}
	return r.Conversations.Conversation(ctx, chat, agent)
}

// summaryNote is how the running summary enters a turn.
func summaryNote(c store.Conversation) string {
	if c.Summary == "" {
		return ""
	}
	return "Earlier in this conversation (a summary of the messages before those you see, written " +
		c.SummarizedAt.UTC().Format("2 Jan 2006 15:04 UTC") + "):\n" + c.Summary
}

// Window is what a chat's next turn would see of its conversation.
type Window struct {
	Conversation store.Conversation
	Messages     int // sent word for word
	Tokens       int // their estimate, bytes over four
	Budget       int // the history budget they fit in
	// Unsent counts the conversation's messages before the window that
	// no summary tells yet (a summary is being or will be written).
	Unsent int
}

// Window tells how much of an agent's conversation in a chat its next
// turn sees, for the owner's /history.
func (r *Runtime) Window(ctx context.Context, chat, agent string) (Window, error) {
	conv, err := r.conversation(ctx, chat, agent)
	if err != nil {
		return Window{}, err
	}
	msgs, err := r.history(ctx, chat, agent, conv.From())
	if err != nil {
		return Window{}, err
	}
	w := Window{Conversation: conv, Messages: len(msgs), Budget: r.historyBudget()}
	for _, m := range msgs {
		w.Tokens += tokens(m)
	}
	if r.Conversations != nil {
		all, err := r.Conversations.MessagesAfter(ctx, chat, agent, conv.From(), 0, maxSummarised)
		if err != nil {
			return Window{}, err
		}
		w.Unsent = max(len(all)-len(msgs), 0)
	}
	return w, nil
}

// background runs the runtime's work that outlives a turn (summaries),
// stopped and waited for by Close.
type background struct {
	mu      sync.Mutex
	ctx     context.Context
	stop    context.CancelFunc
	closed  bool
	running map[string]bool      // chats being summarised
	failed  map[string]time.Time // chats whose last summary failed, and when
	wg      sync.WaitGroup
}

// failedSince says whether the key's work failed within d before now.
func (b *background) failedSince(key string, now time.Time, d time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	at, ok := b.failed[key]
	return ok && now.Sub(at) < d
}

// setFailed marks or clears the key's failure.
func (b *background) setFailed(key string, at time.Time, failed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !failed {
		delete(b.failed, key)
		return
	}
	if b.failed == nil {
		b.failed = map[string]time.Time{}
	}
	b.failed[key] = at
}

// start runs f for key unless f already runs for it or the runtime is
// closed.
func (b *background) start(key string, f func(ctx context.Context)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.running[key] {
		return
	}
	if b.ctx == nil {
		b.ctx, b.stop = context.WithCancel(context.Background())
		b.running = map[string]bool{}
	}
	b.running[key] = true
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() {
			b.mu.Lock()
			delete(b.running, key)
			b.mu.Unlock()
		}()
		f(b.ctx)
	}()
}

// wait waits for the work running now.
func (b *background) wait() { b.wg.Wait() }

func (b *background) close() {
	b.mu.Lock()
	b.closed = true
	if b.stop != nil {
		b.stop()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// Close stops the runtime's background work (a summary being written is
// dropped: it is written again after the next turn) and waits for it.
func (r *Runtime) Close() { r.bg.close() }

// summarise starts rewriting the chat's summary after a turn when its
// conversation outgrew the window. A delegate keeps its own session and
// has no model of ours to summarise with.
func (r *Runtime) summarise(st *turnState) {
	if r.Conversations == nil || st.model.Provider == nil || st.model.Delegate != nil {
		return
	}
	in := Input{Agent: st.agent, Chat: st.in.Chat, summary: true}
	model := st.model
	key := in.Chat + "\x00" + in.Agent
	if r.bg.failedSince(key, r.now(), retryAfter) {
		return
	}
	r.bg.start(key, func(ctx context.Context) {
		err := r.rewriteSummary(ctx, in, model)
		switch {
		case err == nil:
			r.bg.setFailed(key, time.Time{}, false)
		case jarvisbot.ErrorCode(err) == jarvisbot.ECONFLICT:
			r.log().Info("a conversation's summary was not kept", "chat", in.Chat, "why", err)
		case ctx.Err() != nil:
			// Stopping: the next turn after the restart writes it.
		default:
			r.bg.setFailed(key, r.now(), true)
			r.log().Warn("summarising a long conversation; its turns see the newest messages only until it works (tried again in 15 minutes)", "chat", in.Chat, "err", err)
		}
	})
}

// numbered is a stored message with its id.
type numbered struct {
	id  int64
	at  time.Time
	msg llm.Message
}

// rewriteSummary tells the conversation's oldest unsummarised messages
// into its summary, when they outgrew the window.
func (r *Runtime) rewriteSummary(ctx context.Context, in Input, model Model) error {
	conv, err := r.Conversations.Conversation(ctx, in.Chat, in.Agent)
	if err != nil {
		return err
	}
	stored, err := r.Conversations.MessagesAfter(ctx, in.Chat, in.Agent, conv.From(), 0, maxSummarised)
	if err != nil {
		return err
	}
	var msgs []numbered
	total := 0
	for _, s := range stored {
		var m llm.Message
		if json.Unmarshal(s.Content, &m) != nil {
			continue
		}
		msgs = append(msgs, numbered{s.ID, s.CreatedAt, m})
		total += tokens(m)
	}
	w := r.historyBudget()
	if total <= w*summariseAbove/10 {
		return nil
	}
	cut := cutAt(msgs, w*keepVerbatim/10)
	if cut <= 0 {
		return nil // no owner message to begin the window at
	}
	told := msgs[:cut]
	// What one summary reads stays bounded: the newest W of it.
	for n, i := 0, len(told)-1; i >= 0; i-- {
		if n += tokens(told[i].msg); n > w {
			told = told[i+1:]
			break
		}
	}
	req := llm.Request{
		System:    summaryInstructions,
		Messages:  []llm.Message{{Role: llm.RoleUser, Text: summaryRequest(conv.Summary, told)}},
		MaxTokens: 2048,
	}
	began := time.Now()
	resp, err := model.Provider.Complete(ctx, req)
	r.recordCall(ctx, &turnState{in: in, agent: in.Agent, model: model, req: llm.Request{}}, resp, err, time.Since(began))
	if err != nil {
		return fmt.Errorf("asking the model for the summary: %w", err)
	}
	summary := capSummary(strings.TrimSpace(resp.Text))
	if summary == "" {
		return fmt.Errorf("the model wrote an empty summary")
	}
	if err := r.Conversations.SetSummary(ctx, in.Chat, in.Agent, conv.After, summary, msgs[cut-1].id, r.now()); err != nil {
		return err
	}
	r.log().Info("summarised a long conversation", "chat", in.Chat, "messages", cut, "summary_bytes", len(summary))
	return nil
}

// cutAt is the index of the first message kept word for word: the newest
// messages within keep tokens, moved forward to an owner's message with
// text, so the window begins where the owner spoke and no tool result is
// parted from its call. 0 when there is no such place.
func cutAt(msgs []numbered, keep int) int {
	i, n := len(msgs), 0
	for i > 0 {
		if n += tokens(msgs[i-1].msg); n > keep {
			break
		}
		i--
	}
	for ; i < len(msgs); i++ {
		if m := msgs[i].msg; m.Role == llm.RoleUser && len(m.ToolResults) == 0 && m.Text != "" {
			return i
		}
	}
	return 0
}

const summaryInstructions = `You keep the running summary of a conversation between a person and their assistant, so the assistant can go on with it when the early messages are no longer in view. Rewrite the summary so it also tells the new messages. Keep what the person will expect the assistant to remember: facts they told about themselves and others, names, dates and numbers, decisions and preferences, promises and open tasks, and what the assistant did for them. Leave out greetings and small talk. Write plain sentences in the conversation's language, oldest first, at most 800 words. Write only the summary.`

// summaryRequest is the summary so far and the messages to add to it, as
// a transcript; tool results are cut to their start.
func summaryRequest(before string, msgs []numbered) string {
	var b strings.Builder
	if before != "" {
		b.WriteString("The summary so far:\n" + before + "\n\nThe messages that follow it:\n")
	} else {
		b.WriteString("The messages:\n")
	}
	for _, n := range msgs {
		m := n.msg
		stamp := n.at.UTC().Format("2 Jan 15:04")
		switch m.Role {
		case llm.RoleUser:
			if m.Text != "" {
				fmt.Fprintf(&b, "[%s] Person: %s\n", stamp, m.Text)
			}
			for _, res := range m.ToolResults {
				fmt.Fprintf(&b, "[%s] Tool result: %s\n", stamp, clipBytes(res.Content, 300))
			}
		default:
			if m.Text != "" {
				fmt.Fprintf(&b, "[%s] Assistant: %s\n", stamp, m.Text)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "[%s] Assistant used %s: %s\n", stamp, c.Name, clipBytes(string(c.Input), 200))
			}
		}
	}
	return b.String()
}

// clipBytes cuts s to about n bytes on a rune boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// capSummary keeps a summary within maxSummaryBytes, cut after its last
// whole sentence that fits.
func capSummary(s string) string {
	if len(s) <= maxSummaryBytes {
		return s
	}
	s = clipBytes(s, maxSummaryBytes)
	if i := strings.LastIndexAny(s, ".!?\n"); i > maxSummaryBytes/2 {
		return s[:i+1]
	}
	return s
}
