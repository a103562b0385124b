// Package desk is the dispatcher between the chat channels and the agents
// (CH1, CH2, CH3, V1, P4, X4, X5, ST2): every message a channel receives,
// and every answer, approval prompt and report it sends, passes through
// the desk. serve, chat and schedule run all go through it. By concern:
//   - owners.go: only the owner is served, an allow-list or one pairing by
//     code per platform (CH1);
//   - inbox.go: each chat's messages in order, one turn at a time while
//     different chats run at once, kept in the durable inbox until
//     answered, so a restart neither loses nor repeats one (CH1, X4);
//   - commands.go: slash commands, answered from the Facts the service
//     reports (facts.go);
//   - approval.go: approval requests drawn as buttons where the owner
//     wants them, each decided once, saying who decided (CH2, X5);
//   - deliveries.go: a platform's delivery answered once, a reply that
//     could not be sent kept and sent again, scheduled reports (CH1, CH3);
//   - pause.go: while paused messages wait, and the owner is told who
//     paused and how to go on (X5);
//   - voice.go: voice notes kept with their audio until transcribed, and
//     answered with a quote of what was heard, spoken back where the
//     platform has voice notes (V1);
//   - renew.go: the Renew button of a plugin sign-in that expired (P4);
//   - budget.go: a message a budget stopped waits, as while paused, and
//     the owner's buttons raise the limit or allow one more turn (A5);
//   - replicas.go: turns across replicas sharing a PostgreSQL store (ST2).
package desk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
)

// Turner runs turns (the agent runtime).
type Turner interface {
	Turn(ctx context.Context, in agents.Input) (agents.Result, error)
	// Continue goes on with a turn whose approval was decided after it
	// stopped waiting (a restart).
	Continue(ctx context.Context, a store.Approval) (agents.Result, error)
}

// Store is what the desk keeps.
type Store interface {
	store.Channels
	store.Inbox
	store.Deliveries
	Approval(ctx context.Context, id string) (store.Approval, error)
}

// Options configure a desk.
type Options struct {
	Runtime   Turner
	Approvals *approvals.Engine
	Store     Store
	// Owners are the configured owners by user id ("telegram:123"). A
	// platform with none listed pairs its first owner by code.
	Owners []string
	// ApprovalChat is where approval buttons go: "" for the chat the
	// request came from, else a chat such as "discord:123456".
	ApprovalChat string
	// MainChat is the owner's main chat: approval buttons of a request
	// raised where no channel runs (an app's job, "job:ID") go there.
	MainChat string
	// Paused reports whether the owner (or an app with the right) paused
	// every agent, and by whom: messages then wait in the inbox and are
	// answered once Resumed is called. Nil means never paused.
	Paused func() (bool, string)
	Agent  string // the agent that answers, default "default"
	// AgentOf, when set, chooses the agent of each message (A4): the
	// chat's own, or another for @NAME or a chat switched with /agent;
	// marked says the reply names who answered. It returns the text to
	// answer (without @NAME).
	AgentOf func(ctx context.Context, chat, text string) (agent, rest string, marked bool, err error)
	// ArgCommands are slash commands that take the rest of the line
	// (/agent NAME), answered like Commands.
	ArgCommands map[string]func(ctx context.Context, chat, arg string) string
	// Transcribe turns a voice note or audio file into text (V1); nil
	// when no transcription endpoint is set: the note is kept and the
	// owner told, once, NoTranscription.
	Transcribe func(ctx context.Context, audio []byte, mime, fileName string) (string, error)
	// NoTranscription says what to set for voice notes to be heard.
	NoTranscription string
	// Speak makes an OGG/Opus voice note of an answer, for an owner who
	// spoke (voice.reply auto); nil: answers are text only.
	// It returns the note's length too (0 if unknown).
	Speak func(ctx context.Context, text string) ([]byte, time.Duration, error)
	// Commands answer slash commands by name ("skills"), for a chat.
	Commands map[string]func(ctx context.Context, chat string) string
	// Renew starts a new sign-in of a plugin whose sign-in needs
	// attention (P4), for the owner's Renew button: the link to open, and
	// wait, which returns once the sign-in is done or failed.
	Renew func(ctx context.Context, plugin string) (link string, wait func(context.Context) error, err error)
	// Leases, when several processes share the store (ST2), lets one at a
	// time send the kept replies again, so none goes out twice; nil for
	// one process.
	Leases jarvisbot.Leases
	// Queue, when replicas share a PostgreSQL store (ST2), takes each
	// received message so that whichever replica holds its chat answers
	// it (AnswerChat); nil: this process answers every chat in its own
	// queue.
	Queue Queue
	// Zone is the owner's time zone (config timezone): a request's expiry
	// is shown in it, with its name. Nil means the machine's.
	Zone *time.Location
	// DashboardURL is the dashboard's address as the owner opens it
	// (web.url): a request's message links to its page there, which
	// shows the call's arguments whole. "" leaves the link out.
	DashboardURL string
	// Budget, when set, decides the owner's presses on the buttons of a
	// reached budget (budget.go, A5).
	Budget BudgetDecider
	// Clock times the release of chats a budget stopped at the end of
	// its period; nil is the wall clock.
	Clock  clock.Clock
	Logger *slog.Logger
}

// Desk routes between channels and the runtime. It implements
// channels.Handler.
type Desk struct {
	// base is the turns' context: Drain ends it when its deadline passes,
	// and the turns still running stop without storing more, to be
	// retried (or continued by their approval) after the restart.
	base     context.Context
	stop     context.CancelFunc
	workers  sync.WaitGroup
	opt      Options
	log      *slog.Logger
	channels map[string]channels.Channel

	// kept says a reply may be waiting in the store to be sent again; an
	// idle service then does not query the store every time it retries.
	kept atomic.Bool

	mu      sync.Mutex
	told    map[string]bool // chats told that jarvisbot is paused, since the pause
	owners  map[string]bool
	codes   map[string]string // platform -> pairing code, while it has no owner
	refused map[string]bool
	chats   map[string]*chatQueue
	// draining is set by Drain: messages are still kept in the inbox, but
	// no new turn starts; the next start answers them.
	draining bool
	// overTold is the budget limit each chat was told stopped it;
	// releaseAt and releaseStop the release armed for the end of a
	// budget's period (budget.go).
	overTold    map[string]string
	releaseAt   time.Time
	releaseStop func() bool
	// releases counts Released, so that a turn a budget stopped can tell
	// whether a release came while it ran, before its chat was held.
	releases int
}

// New returns a desk over the given channels.
func New(ctx context.Context, opt Options, chans ...channels.Channel) (*Desk, error) {
	if opt.Agent == "" {
		opt.Agent = store.DefaultAgent
	}
	if opt.NoTranscription == "" {
		opt.NoTranscription = defaultNoTranscription
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Desk{opt: opt, log: log, channels: map[string]channels.Channel{}, owners: map[string]bool{},
		codes: map[string]string{}, refused: map[string]bool{}, chats: map[string]*chatQueue{}}
	// Turns outlive the caller's context (a signal): Drain decides when
	// they stop.
	d.base, d.stop = context.WithCancel(context.WithoutCancel(ctx))
	for _, c := range chans {
		d.channels[c.Name()] = c
	}
	d.kept.Store(true) // the last run may have left some
	if err := d.loadOwners(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

func platform(id string) string {
	p, _, _ := strings.Cut(id, ":")
	return p
}

// HandleMessage queues a message of its chat; the chat's worker answers
// the queue in order, one turn at a time.
func (d *Desk) HandleMessage(ctx context.Context, m channels.Message) {
	d.handle(ctx, m, nil)
}

// Ask handles a message as HandleMessage does and returns once it is
// answered, with the error of its turn (chat -m: one message, then exit).
// It returns ctx's error when ctx ends first, and nil for a slash command.
func (d *Desk) Ask(ctx context.Context, m channels.Message) error {
	answered := make(chan error, 1)
	if !d.handle(ctx, m, answered) {
		return nil
	}
	select {
	case err := <-answered:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-d.base.Done():
		return fmt.Errorf("jarvisbot stopped before the message was answered; it is answered after the next start")
	}
}

// handle serves a message; it reports whether a turn was queued for it.
func (d *Desk) handle(ctx context.Context, m channels.Message, answered chan<- error) bool {
	text := strings.TrimSpace(m.Text)
	if !d.isOwner(m.User) {
		if d.first(ctx, m.Chat, m.Delivery) {
			d.stranger(ctx, m, text)
		}
		return false
	}
	// A note's or a file's caption is context for it, never a command.
	if m.Audio == nil && m.File == nil && strings.HasPrefix(text, "/") && d.isCommand(text) {
		if d.first(ctx, m.Chat, m.Delivery) {
			d.command(ctx, m, text)
		}
		return false
	}
	in := store.Incoming{Chat: m.Chat, User: m.User, Name: m.Name, Text: m.Text, Delivery: m.Delivery}
	if m.Audio != nil {
		if in.Audio = d.fetchAudio(ctx, m); in.Audio == nil {
			return false
		}
	}
	if m.File != nil && m.Audio == nil {
		if in.File = d.fetchFile(ctx, m); in.File == nil {
			return false
		}
	}
	// Stored before this returns, a note with its audio: the channel
	// confirms the message to the platform only then, so a crash neither
	// loses nor repeats it. A delivery taken before (a redelivery, or the
	// copy another replica took) is confirmed and not answered again.
	id, err := d.opt.Store.Receive(ctx, in)
	if errors.Is(err, store.ErrDelivered) {
		d.log.Debug("a message delivered again is answered once", "chat", m.Chat, "delivery", m.Delivery)
		return false
	}
	if err != nil {
		d.log.Error("storing a received message", "chat", m.Chat, "err", err)
	}
	if d.opt.Queue != nil && id != 0 && answered == nil {
		d.queue(ctx, m, id)
		return true
	}
	d.enqueue(ctx, queued{Message: m, inbox: id, audio: in.Audio, file: in.File, answered: answered})
	return true
}

// Drain stops starting turns and waits for those in flight until ctx
// ends; then it stops them and waits for them to return. Messages not
// answered stay in the inbox for the next start. Call it once the
// channels stopped receiving.
func (d *Desk) Drain(ctx context.Context) {
	d.mu.Lock()
	d.draining = true
	d.mu.Unlock()
	d.stopRelease()
	done := make(chan struct{})
	go func() { d.workers.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		d.log.Warn("answers still running at the shutdown deadline are stopped; they are answered after the next start")
		d.stop()
		<-done
	}
	d.stop()
}

// turn runs one queued turn and sends its answer. It reports whether the
// message is done with (false when the shutdown stopped its turn), and
// the turn's error.
func (d *Desk) turn(ctx context.Context, m queued) (bool, error) {
	ch := d.channels[platform(m.Chat)]
	stopTyping := func() {}
	// A note kept for want of a transcription endpoint gets no turn: no
	// "typing…" after each start for it.
	if m.audio == nil || m.audio.Heard || d.opt.Transcribe != nil {
		stopTyping = d.typing(ctx, ch, m.Chat)
	}
	in := agents.Input{Agent: d.opt.Agent, Chat: m.Chat, Text: m.Text, Retry: m.retry, File: m.file}
	var marked bool
	if d.opt.AgentOf != nil && m.approval == nil {
		// A voice note goes to the chat's agent: its words are not heard
		// yet, so no @NAME is read from them.
		text := m.Text
		if m.audio != nil {
			text = ""
		}
		agent, rest, mark, err := d.opt.AgentOf(ctx, m.Chat, text)
		switch {
		case err != nil:
			d.log.Warn("choosing the agent of a message; the default one answers", "chat", m.Chat, "err", err)
		case m.audio != nil:
			in.Agent, marked = agent, mark
		default:
			in.Agent, in.Text, marked = agent, rest, mark
		}
	}
	var heard string
	switch {
	case m.audio != nil && m.audio.Heard && m.approval == nil:
		// Transcribed before a restart: answered as the spoken message it
		// was, without hearing it again.
		heard, _, _ = strings.Cut(m.Text, "\n\n(")
		in.Voice = true
	case m.audio != nil && m.approval == nil:
		var done bool
		var err error
		if heard, done, err = d.hear(ctx, m); heard == "" {
			stopTyping()
			return done, err
		}
		in.Text, in.Voice = spokenText(heard, m.Text, m.audio), true
	}
	res, err := d.run(ctx, m, in)
	stopTyping()
	if overBudget(m, err) {
		d.tellOver(ctx, m, err)
		return false, err // it waits at the head of its chat (hold)
	}
	text, send, done := d.answer(ctx, res, err)
	if !send {
		return done, err
	}
	shown := text
	if marked && err == nil {
		shown = "**" + in.Agent + ":** " + shown // who answered, when it is not the chat's own agent
	}
	if heard != "" {
		// The owner sees what was heard with the answer: a misheard
		// word explains a strange answer.
		shown = quote(heard) + "\n\n" + text
	}
	d.send(context.WithoutCancel(ctx), channels.Outgoing{Chat: m.Chat, Text: shown, ReplyTo: m.ID})
	if err == nil && strings.TrimSpace(res.Text) != "" {
		d.speakBack(ctx, m, res.Text)
	}
	return true, err
}

// run asks the runtime for the turn: a new one, or the one a decided
// approval goes on with.
func (d *Desk) run(ctx context.Context, m queued, in agents.Input) (agents.Result, error) {
	if m.approval == nil {
		return d.opt.Runtime.Turn(ctx, in)
	}
	res, err := d.opt.Runtime.Continue(ctx, *m.approval)
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("the turn that waited for your decision on %s could not go on: %w", m.approval.Tool, err)
	}
	return res, err
}

// answer is the text the owner gets for a turn's result. A turn that ends
// without one sends nothing (send is false): its pending approval carries
// it (done), or the shutdown stopped it, to be retried after the restart.
func (d *Desk) answer(ctx context.Context, res agents.Result, err error) (text string, send, done bool) {
	text = res.Text
	d.mu.Lock()
	stopping := d.draining || d.base.Err() != nil || errors.Is(context.Cause(ctx), errHandedOver)
	d.mu.Unlock()
	switch {
	case errors.Is(err, agents.ErrAwaitingApproval) && (stopping || !errors.Is(err, context.Canceled)):
		return "", false, true // the pending approval carries the turn; its decision continues it
	case errors.Is(err, context.Canceled) && stopping:
		return "", false, false // shutting down: retried after the restart
	case errors.Is(err, context.Canceled):
		text = "Stopped."
	case err != nil:
		text = "I could not answer: " + err.Error() + ". Your message is kept; send it again to retry."
	case strings.TrimSpace(text) == "":
		text = "(no answer)"
	}
	return text, true, true
}

// typing shows "typing…" every few seconds until stopped; stop returns
// once it has.
func (d *Desk) typing(ctx context.Context, ch channels.Channel, chat string) (stop func()) {
	t, ok := ch.(channels.Typer)
	if !ok {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(4 * time.Second)
		defer tick.Stop()
		for {
			if err := t.Typing(ctx, chat); err != nil && ctx.Err() == nil {
				d.log.Debug("showing typing", "chat", chat, "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}
