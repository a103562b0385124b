// Package dispatch stands between the chat channels and the agent runtime
// (CH1, CH2): it serves only the owner (an allow-list, or one pairing by
// code), keeps each chat's messages in order with one turn at a time while
// different chats run at once, answers slash commands (from the Facts the
// service reports), draws approval requests as buttons where the owner
// wants them and takes each decision once, and keeps a reply that could
// not be sent instead of losing it. An owner's voice notes are kept with
// their audio until transcribed, and answered with a quote of what was
// heard (and spoken back where the platform has voice notes; voice.go).
// serve, chat and schedule run all go through it.
package desk

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/channels"
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
	Leases store.Leases
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
	Logger       *slog.Logger
}

// Queue is the turns' queue shared by replicas (store/sqlstore/replicas).
type Queue interface {
	Add(ctx context.Context, chat string, inbox int64) error
	// Hold waits until this replica holds the chat; the returned
	// context ends if the hold is lost, and release lets the chat go.
	Hold(ctx context.Context, chat string) (held context.Context, release func(), err error)
	// Cancel asks the replica answering chat to stop its turn (its
	// StopTurn), reporting false when no replica holds the chat.
	Cancel(ctx context.Context, chat string) (sent bool, err error)
}

// leaseKeptReplies is the role of the process sending kept replies again.
const leaseKeptReplies = "kept-replies"

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
}

// queued is a message with its inbox row, or a decided approval whose
// turn goes on.
type queued struct {
	channels.Message
	inbox int64
	// retry: the message came from the inbox at start; its turn may have
	// begun before the restart.
	retry    bool
	approval *store.Approval
	// audio is a voice note or audio file not yet transcribed (V1).
	audio *store.IncomingAudio
	// answered, when set, hears the turn's error once it is done (Ask).
	answered chan<- error
}

type chatQueue struct {
	msgs    []queued
	running bool
	cancel  context.CancelFunc
	// behind counts, with replicas, the chat's messages waiting in the
	// store behind the one this replica answers (AnswerChat).
	behind int
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
	for _, o := range opt.Owners {
		d.owners[o] = true
	}
	paired, err := opt.Store.Owners(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range paired {
		d.owners[o] = true
	}
	for name := range d.channels {
		if name == "console" || d.hasOwner(name) {
			continue
		}
		code, err := pairingCode()
		if err != nil {
			return nil, err
		}
		d.codes[name] = code
		// The log is the owner's console: no one else sees this line.
		log.Warn("no owner is set for this channel: send /pair CODE to the bot from your account to become its owner, or list your user id in the config", "channel", name, "code", code)
	}
	return d, nil
}

func (d *Desk) hasOwner(platform string) bool {
	for o := range d.owners {
		if strings.HasPrefix(o, platform+":") {
			return true
		}
	}
	return false
}

// PairingCode returns the code a platform waits for, or "".
func (d *Desk) PairingCode(platform string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.codes[platform]
}

func pairingCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

func platform(id string) string {
	p, _, _ := strings.Cut(id, ":")
	return p
}

// isOwner decides whether a sender is served; the console always is.
func (d *Desk) isOwner(user string) bool {
	if platform(user) == "console" {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.owners[user]
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
	// A note's caption is context for what was said, never a command.
	if m.Audio == nil && strings.HasPrefix(text, "/") && d.isCommand(text) {
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
	d.enqueue(ctx, queued{Message: m, inbox: id, audio: in.Audio, answered: answered})
	return true
}

// Resume queues the messages received before a restart and not answered
// whose channel runs here; the others wait in the inbox for a start that
// runs theirs (chat runs only the console).
func (d *Desk) Resume(ctx context.Context) error {
	if d.opt.Queue != nil {
		return nil // queued already; the queue's sweep finds any that were not
	}
	list, err := d.opt.Store.Waiting(ctx)
	if err != nil {
		return err
	}
	for _, m := range list {
		if _, ok := d.channels[platform(m.Chat)]; !ok {
			continue
		}
		// A voice note still waiting for its transcription comes back
		// with its audio; the owner was told already if Told is set.
		d.enqueue(ctx, queued{Message: channels.Message{Chat: m.Chat, User: m.User, Name: m.Name, Text: m.Text}, inbox: m.ID, retry: true, audio: m.Audio})
	}
	return nil
}

// Continue goes on with the turn of an approval decided while no turn
// waited for it (after a restart), in its chat's order, and sends the
// answer there. It is the approvals engine's Orphan.
func (d *Desk) Continue(a store.Approval) {
	if d.opt.Queue != nil {
		d.continueHeld(a)
		return
	}
	d.enqueue(d.base, queued{Message: channels.Message{Chat: a.Chat}, approval: &a})
}

// Drain stops starting turns and waits for those in flight until ctx
// ends; then it stops them and waits for them to return. Messages not
// answered stay in the inbox for the next start. Call it once the
// channels stopped receiving.
func (d *Desk) Drain(ctx context.Context) {
	d.mu.Lock()
	d.draining = true
	d.mu.Unlock()
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

func (d *Desk) enqueue(ctx context.Context, m queued) {
	d.mu.Lock()
	q := d.chats[m.Chat]
	if q == nil {
		q = &chatQueue{}
		d.chats[m.Chat] = q
	}
	q.msgs = append(q.msgs, m)
	start := !q.running && !d.draining
	paused, by := d.paused()
	if paused {
		start = false
		paused = d.tellPaused(m.Chat)
	}
	if start {
		q.running = true
		d.workers.Add(1)
	}
	d.mu.Unlock()
	if start {
		go d.work(d.base, m.Chat)
	}
	if paused && m.approval == nil {
		d.sayPaused(ctx, m.Message, by)
	}
}

// tellPaused reports whether the chat is still to be told of the pause,
// once per pause; mu is held.
func (d *Desk) tellPaused(chat string) bool {
	if d.told == nil {
		d.told = map[string]bool{}
	}
	tell := !d.told[chat]
	d.told[chat] = true
	return tell
}

// sayPaused tells the owner who paused and how to undo it: a pause an app
// set is the owner's to lift (X5).
func (d *Desk) sayPaused(ctx context.Context, m channels.Message, by string) {
	how := "Run jarvisbot resume to go on."
	if _, ok := d.opt.Commands["resume"]; ok {
		how = "Send /resume to go on."
	}
	d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "Paused by " + by + ": no agent starts a turn until it is resumed. Your message waits and is answered then. " + how, ReplyTo: m.ID})
}

// deliveryKeep is how long a taken delivery is remembered. Telegram keeps
// an update it could not deliver for at most 24 hours, and retries a
// webhook within that time; Discord replays missed events only on a
// session resume, minutes later. Twice Telegram's day leaves room for
// replicas' clocks that disagree, and keeps the table a few thousand rows
// for an owner's traffic.
const deliveryKeep = 48 * time.Hour

// ForgetDeliveries prunes the record of deliveries older than any
// platform redelivers; serve calls it from time to time.
func (d *Desk) ForgetDeliveries(ctx context.Context) {
	if err := d.opt.Store.ForgetDeliveries(ctx, deliveryKeep); err != nil && ctx.Err() == nil {
		d.log.Warn("forgetting old deliveries", "err", err)
	}
}

// first takes a delivery that is answered without an inbox row (a slash
// command, a stranger's message, a press): it reports whether this is its
// first delivery. A message without a delivery id is always new; one that
// cannot be recorded is taken, since an answer twice beats none.
func (d *Desk) first(ctx context.Context, chat, delivery string) bool {
	if delivery == "" {
		return true
	}
	taken, err := d.opt.Store.TakeDelivery(ctx, platform(chat), delivery)
	if err != nil {
		d.log.Error("recording a delivery; it may be answered twice", "chat", chat, "err", err)
		return true
	}
	if !taken {
		d.log.Debug("a delivery that came again is answered once", "chat", chat, "delivery", delivery)
	}
	return taken
}

// stranger answers a sender who is not the owner: the pairing code makes
// the first contact the owner; anyone else gets one polite refusal.
func (d *Desk) stranger(ctx context.Context, m channels.Message, text string) {
	p := platform(m.User)
	d.mu.Lock()
	code := d.codes[p]
	if code != "" && text == "/pair "+code {
		delete(d.codes, p)
		d.owners[m.User] = true
		d.mu.Unlock()
		if err := d.opt.Store.AddOwner(ctx, m.User); err != nil {
			d.log.Error("saving the paired owner", "err", err)
		}
		d.log.Info("owner paired", "user", m.User)
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "Paired: you are the owner of this jarvisbot now. Send /help to see what I can do."})
		return
	}
	already := d.refused[m.User]
	d.refused[m.User] = true
	d.mu.Unlock()
	if !already {
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "Sorry, this is a private assistant; I only answer my owner."})
	}
}

// work answers a chat's queued messages in order until the queue is empty
// or the drain's deadline passes. Messages queued before the drain began
// were taken from the owner, so they are answered if time allows.
func (d *Desk) work(ctx context.Context, chat string) {
	defer d.workers.Done()
	for {
		d.mu.Lock()
		q := d.chats[chat]
		if paused, _ := d.paused(); len(q.msgs) == 0 || ctx.Err() != nil || paused {
			q.running = false
			d.mu.Unlock()
			return // what is left waits in the inbox for the next start
		}
		m := q.msgs[0]
		q.msgs = q.msgs[1:]
		tctx, cancel := context.WithCancel(ctx)
		q.cancel = cancel
		d.mu.Unlock()
		done, err := d.turn(tctx, m)
		cancel()
		if m.answered != nil {
			m.answered <- err
		}
		// The inbox lets a message go once it is answered (or its pending
		// approval carries it), never before: a turn stopped by the
		// shutdown is retried after the restart.
		if done && m.inbox != 0 {
			if err := d.opt.Store.Answered(context.WithoutCancel(ctx), m.inbox); err != nil {
				d.log.Error("clearing an answered message; it may be answered again after a restart", "chat", chat, "err", err)
			}
		}
	}
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
	in := agents.Input{Agent: d.opt.Agent, Chat: m.Chat, Text: m.Text, Retry: m.retry}
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
	var res agents.Result
	var err error
	if m.approval != nil {
		res, err = d.opt.Runtime.Continue(ctx, *m.approval)
		if err != nil && ctx.Err() == nil {
			err = fmt.Errorf("the turn that waited for your decision on %s could not go on: %w", m.approval.Tool, err)
		}
	} else {
		res, err = d.opt.Runtime.Turn(ctx, in)
	}
	stopTyping()
	text := res.Text
	d.mu.Lock()
	stopping := d.draining || d.base.Err() != nil || errors.Is(context.Cause(ctx), errHandedOver)
	d.mu.Unlock()
	switch {
	case errors.Is(err, agents.ErrAwaitingApproval) && (stopping || !errors.Is(err, context.Canceled)):
		return true, err // the pending approval carries the turn; its decision continues it
	case errors.Is(err, context.Canceled) && stopping:
		return false, err // shutting down: retried after the restart
	case errors.Is(err, context.Canceled):
		text = "Stopped."
	case err != nil:
		text = "I could not answer: " + err.Error() + ". Your message is kept; send it again to retry."
	case strings.TrimSpace(text) == "":
		text = "(no answer)"
	}
	shown := text
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

// send delivers a message; one that cannot be sent is kept and reported.
func (d *Desk) send(ctx context.Context, out channels.Outgoing) string {
	ch, ok := d.channels[platform(out.Chat)]
	if !ok {
		d.log.Error("no channel for chat", "chat", out.Chat)
		return ""
	}
	id, err := ch.Send(ctx, out)
	if err != nil {
		d.log.Error("a reply could not be delivered; it is kept and retried", "chat", out.Chat, "err", err)
		if kerr := d.opt.Store.KeepUndelivered(ctx, store.Undelivered{Chat: out.Chat, Text: out.Text, Error: err.Error()}); kerr != nil {
			d.log.Error("keeping the undelivered reply", "err", kerr)
		}
		d.kept.Store(true)
		return ""
	}
	return id
}

// RetryUndelivered sends the kept replies again; the service calls it
// from time to time. It looks in the store only when a reply was kept
// since it last found none (or at start).
func (d *Desk) RetryUndelivered(ctx context.Context) {
	// Cleared before the look, so that a reply kept meanwhile sets it again.
	if !d.kept.Swap(false) {
		return
	}
	if d.opt.Leases != nil {
		l, ok, err := d.opt.Leases.TryLead(ctx, leaseKeptReplies)
		if err != nil || !ok {
			d.kept.Store(true) // another replica sends them now; look again next time
			return
		}
		defer l.Release()
	}
	list, err := d.opt.Store.Undelivered(ctx)
	if err != nil {
		d.kept.Store(true)
		return
	}
	for _, u := range list {
		ch, ok := d.channels[platform(u.Chat)]
		if !ok {
			continue // its channel is not running; the next start looks again
		}
		text := fmt.Sprintf("(This answer could not be delivered at %s; here it is now.)\n\n%s", u.CreatedAt.Local().Format("15:04"), u.Text)
		if _, err := ch.Send(ctx, channels.Outgoing{Chat: u.Chat, Text: text}); err != nil {
			d.kept.Store(true)
			continue
		}
		if err := d.opt.Store.Delivered(ctx, u.ID); err != nil {
			d.log.Error("marking a kept reply as sent", "err", err)
		}
	}
}

// Report posts a scheduled report and says whether it went out; the
// scheduler records and retries it itself (CH3).
func (d *Desk) Report(ctx context.Context, chat, text string) error {
	ch, ok := d.channels[platform(chat)]
	if !ok {
		return fmt.Errorf("no channel for chat %s is running", chat)
	}
	_, err := ch.Send(ctx, channels.Outgoing{Chat: chat, Text: text})
	return err
}

// Deliver sends an answer outside a turn (a continued turn, a report).
func (d *Desk) Deliver(ctx context.Context, chat, text string) {
	d.send(ctx, channels.Outgoing{Chat: chat, Text: text})
}

// The commands every channel registers.
var Commands = []channels.Command{
	{Name: "help", Description: "what I can do"},
	{Name: "skills", Description: "the skills and whether they are on"},
	{Name: "plugins", Description: "installed plugins, and what needs attention"},
	{Name: "mcp", Description: "MCP servers and whether they answer"},
	{Name: "agents", Description: "the agents"},
	{Name: "activity", Description: "what the agents did lately"},
	{Name: "schedule", Description: "scheduled skills: next and last run"},
	{Name: "dashboard", Description: "a one-time sign-in link to the dashboard"},
	{Name: "cancel", Description: "stop the answer in progress"},
	{Name: "pause", Description: "pause every agent until /resume"},
	{Name: "resume", Description: "go on after a pause, whoever set it"},
}

// isCommand reports whether text is a slash command the desk answers;
// other text that starts with a slash goes to the agent.
func (d *Desk) isCommand(text string) bool {
	name := commandName(text)
	_, ok := d.opt.Commands[name]
	return ok || name == "help" || name == "cancel"
}

func commandName(text string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	name, _, _ = strings.Cut(name, "@") // Telegram's /help@botname
	return name
}

// command answers a slash command isCommand knows.
func (d *Desk) command(ctx context.Context, m channels.Message, text string) {
	name := commandName(text)
	switch name {
	case "help":
		var b strings.Builder
		b.WriteString("Write to me as you would to an assistant. Commands:\n")
		for _, c := range Commands {
			fmt.Fprintf(&b, "/%s — %s\n", c.Name, c.Description)
		}
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: b.String()})
		return
	case "cancel":
		if d.StopTurn(m.Chat) {
			return
		}
		if d.opt.Queue != nil {
			// Replicas: the chat's turn may run on another one, which
			// says "Stopped." when it stops it.
			sent, err := d.opt.Queue.Cancel(ctx, m.Chat)
			if err != nil {
				d.log.Warn("passing /cancel to the other replicas", "chat", m.Chat, "err", err)
				d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "I could not reach the replica answering this chat to stop its turn. Try /cancel again in a moment."})
				return
			}
			if sent {
				return
			}
		}
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "Nothing is running."})
		return
	}
	if f, ok := d.opt.Commands[name]; ok {
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: f(ctx, m.Chat)})
	}
}

// Button data: "ap:<id>:<y|n|a>", 31 bytes, an id into the store.
const buttonPrefix = "ap:"

// Notify draws a new approval request as buttons and, once it is decided
// or expired, edits the message to show the outcome without buttons. It
// is the approvals engine's Notify.
func (d *Desk) Notify(a store.Approval) {
	ctx := context.Background()
	if a.State == store.ApprovalPending {
		chat := d.approvalChat(a)
		text := d.requestText(a)
		buttons := [][]channels.Button{{
			{Label: "Approve", Data: buttonPrefix + a.ID + ":y", Keys: []string{"y", "yes"}},
			{Label: "Deny", Data: buttonPrefix + a.ID + ":n", Keys: []string{"n", "no"}},
		}, {
			{Label: "Always for this tool", Data: buttonPrefix + a.ID + ":a", Keys: []string{"a", "always"}},
		}}
		// Recorded before it is sent: a crash right after the send must not
		// draw a second prompt at the next start (Redraw).
		if err := d.opt.Store.SetApprovalMessage(ctx, a.ID, chat, ""); err != nil {
			d.log.Error("remembering the approval message", "approval", a.ID, "err", err)
		}
		id := d.send(ctx, channels.Outgoing{Chat: chat, Text: text, Buttons: buttons})
		var err error
		if id != "" {
			err = d.opt.Store.SetApprovalMessage(ctx, a.ID, chat, id)
		} else {
			err = d.opt.Store.ForgetApprovalMessage(ctx, a.ID, chat)
		}
		if err != nil {
			d.log.Error("remembering the approval message", "approval", a.ID, "err", err)
		}
		return
	}
	d.showOutcome(ctx, a)
}

// approvalChat is where a request's buttons go: the configured approvals
// chat, else the chat the request came from, else (no channel runs there:
// an app's job) the owner's main chat.
func (d *Desk) approvalChat(a store.Approval) string {
	if d.opt.ApprovalChat != "" {
		return d.opt.ApprovalChat
	}
	if _, ok := d.channels[platform(a.Chat)]; !ok && d.opt.MainChat != "" {
		return d.opt.MainChat
	}
	return a.Chat
}

// paused asks Options.Paused.
func (d *Desk) paused() (bool, string) {
	if d.opt.Paused == nil {
		return false, ""
	}
	return d.opt.Paused()
}

// Resumed starts the chats whose messages waited while jarvisbot was
// paused.
func (d *Desk) Resumed() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.told = nil
	if paused, _ := d.paused(); paused || d.draining {
		return
	}
	for chat, q := range d.chats {
		if len(q.msgs) > 0 && !q.running {
			q.running = true
			d.workers.Add(1)
			go d.work(d.base, chat)
		}
	}
}

// Redraw draws a request that outlived a restart only where it was never
// drawn: the owner's prompt from the last run keeps working (its buttons
// carry the request's id), so a second copy would only confuse. A request
// whose message could not be sent gets one now; one whose sending a crash
// cut short counts as drawn (it most likely went out).
func (d *Desk) Redraw(ctx context.Context, a store.Approval) {
	chat := d.approvalChat(a)
	msgs, err := d.opt.Store.ApprovalMessages(ctx, a.ID)
	if err != nil {
		d.log.Error("reading where an approval request was drawn; drawing it again", "approval", a.ID, "err", err)
	}
	// The console's messages end with the process that printed them: a
	// request drawn there before is asked again.
	if _, drawn := msgs[chat]; drawn && platform(chat) != "console" {
		return
	}
	d.Notify(a)
}

// outcome says how a request was decided and, when an app decided it over
// the MCP surface, which app: the owner's chat never shows an app's
// decision as the owner's (X5).
func outcome(a store.Approval) string {
	by := ""
	if app := a.DeciderApp(); app != "" {
		by = " by app " + app
	}
	switch a.State {
	case store.ApprovalApproved:
		if a.Always {
			return "Approved" + by + ", always for this tool"
		}
		return "Approved" + by
	case store.ApprovalDenied:
		return "Denied" + by
	case store.ApprovalExpired:
		return "Expired: nobody answered, so it was denied"
	}
	return string(a.State)
}

// showOutcome edits every message that drew the request.
func (d *Desk) showOutcome(ctx context.Context, a store.Approval) {
	msgs, err := d.opt.Store.ApprovalMessages(ctx, a.ID)
	if err != nil {
		return
	}
	text := fmt.Sprintf("%s — agent %s: %s\n(%s)", outcome(a), a.Agent, a.Summary, a.Tool)
	for chat, id := range msgs {
		if id == "" {
			continue // its sending was cut short: there is no message to edit
		}
		if ch, ok := d.channels[platform(chat)]; ok {
			if err := ch.Edit(ctx, chat, id, text, nil); err != nil {
				d.log.Warn("editing the approval message", "chat", chat, "err", err)
			}
		}
	}
}

// HandlePress takes a button press: only an approver decides, once; anyone
// else is told so and changes nothing; a late or second press sees the
// outcome.
func (d *Desk) HandlePress(ctx context.Context, p channels.Press) {
	if !d.first(ctx, p.Chat, p.Delivery) {
		return // the first delivery of this press answered it
	}
	answer := func(s string) {
		if p.Answer != nil {
			if err := p.Answer(ctx, s); err != nil {
				d.log.Warn("answering a button press", "chat", p.Chat, "err", err)
			}
		}
	}
	if plugin, ok := strings.CutPrefix(p.Data, renewPrefix); ok {
		d.renew(ctx, p, plugin, answer)
		return
	}
	rest, ok := strings.CutPrefix(p.Data, buttonPrefix)
	id, choice, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || len(id) > 64 || (choice != "y" && choice != "n" && choice != "a") {
		answer("This button is not mine, or no longer valid.")
		return
	}
	if d.opt.Approvals == nil || !d.opt.Approvals.IsApprover(p.User) {
		answer("Only the owner can decide this.")
		return
	}
	d.rememberPressed(ctx, id, p)
	a, err := d.opt.Approvals.Decide(ctx, id, p.User, choice != "n", choice == "a")
	switch jarvisbot.ErrorCode(err) {
	case "":
		answer(outcome(a))
	case jarvisbot.ECONFLICT:
		answer("Already decided: " + outcome(a))
		d.showOutcome(ctx, a)
	case jarvisbot.EFORBIDDEN:
		answer("Only the owner can decide this.")
	case jarvisbot.ENOTFOUND:
		answer("This request is unknown (it may be from another jarvisbot).")
	default:
		answer("The decision could not be saved; try again.")
		d.log.Error("deciding an approval", "err", err)
	}
}

// rememberPressed records the message a press came from when the record
// of where the request was drawn lacks it (a crash cut its sending
// short), so that the outcome is shown on the prompt the owner pressed.
func (d *Desk) rememberPressed(ctx context.Context, id string, p channels.Press) {
	if p.MessageID == "" {
		return
	}
	msgs, err := d.opt.Store.ApprovalMessages(ctx, id)
	if err != nil || msgs[p.Chat] != "" {
		return
	}
	if err := d.opt.Store.SetApprovalMessage(ctx, id, p.Chat, p.MessageID); err != nil {
		d.log.Warn("remembering the pressed approval message", "approval", id, "err", err)
	}
}

// IsOwner reports whether a user is an owner (configured or paired): with
// no approvers listed, the owners decide.
func (d *Desk) IsOwner(user string) bool { return d.isOwner(user) }

// StopTurn stops the chat's turn running in this process, as the owner's
// /cancel does, and drops the messages queued behind it; it reports
// whether one ran. Replicas call it when a /cancel reached another one.
func (d *Desk) StopTurn(chat string) bool {
	d.mu.Lock()
	q := d.chats[chat]
	var cancel context.CancelFunc
	if q != nil && q.running {
		cancel = q.cancel
		q.msgs = nil
	}
	d.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}
