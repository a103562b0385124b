// Package approvals is the engine behind ask-tier tools (C2, CH2): a
// request is stored with an unguessable id, what will happen in words, the
// agent and chat it came from, and an expiry; only an approver decides, and
// only once; an unanswered request expires and counts as denied; pending
// requests survive a restart. Channels draw the buttons; this package
// decides.
package approvals

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
)

// DefaultTTL is how long a request waits for a decision.
const DefaultTTL = 10 * time.Minute

// ExpiryRetry is how long an expiry the store refused waits before it is
// tried again.
const ExpiryRetry = 30 * time.Second

// ByAlways is the decider recorded when a standing grant approved a call.
const ByAlways = "always"

// Options configure an engine.
type Options struct {
	Store store.Approvals
	Clock clock.Clock   // nil means the wall clock
	TTL   time.Duration // 0 means DefaultTTL
	// Approvers are the user ids ("telegram:123", "discord:456",
	// "console") whose decisions count. Empty means nobody but "console".
	Approvers []string
	// Approver, when set, decides for users not in Approvers (the owners,
	// when no approvers are listed).
	Approver func(user string) bool
	// Notify, when set, is told of every new request and every decision,
	// so channels can draw and then update their buttons. It must not block.
	Notify func(store.Approval)
	// Orphan, when set, is told of a decision that no waiting turn took: a
	// request decided after a restart, whose turn the runtime continues.
	Orphan func(store.Approval)
	// Logger is told of expiries the store refused; nil discards.
	Logger *slog.Logger
	// Watch, when set, is how often a turn waiting for a decision reads
	// the store, to hear of one taken by another process sharing it
	// (replicas on one PostgreSQL, ST2). Decisions are then also carried
	// out once: the waiting turn and an Orphan claim the request
	// (store.CarryApproval) before acting, and an Orphan is held back
	// OrphanGrace first, so the turn that waits on another replica, which
	// hears of the decision within Watch, claims it before anyone takes it
	// for an orphan. 0 means one process: decisions are heard in memory.
	Watch time.Duration
	// Carrier names this process in claims (host and pid); "" means
	// "this process".
	Carrier string
}

// OrphanGrace is how many Watch periods a decision no turn here waits for
// is held back before it is taken for an orphan.
const OrphanGrace = 3

// ErrCarriedElsewhere is returned by Wait when another process claimed the
// decision first: it acts on it, and this turn must not.
var ErrCarriedElsewhere = errors.New("another jarvisbot replica carried out the owner's decision on this request")

// Engine runs approvals. It is safe for concurrent use.
type Engine struct {
	opt Options

	mu      sync.Mutex
	waiters map[string][]chan store.Approval
	timers  map[string]func() bool
	// live holds the requests asked in this run, whose turn waits or is
	// about to: only a decision on another (one that outlived a restart)
	// is an orphan.
	live map[string]bool
	// handed holds the decisions this process gave Orphan whose turn has
	// not yet taken them up (TakeUp): until it does, the decision carries
	// that turn as a pending request would (CarryingIn).
	handed map[string]store.Approval
	// deciding holds the pending requests whose decision is being made:
	// from before the store says decided until done has woken their turn
	// or handed them to Orphan. In between, the drawing of the decision
	// (Notify) talks to the chat, and a turn run again after a restart
	// must not take that moment for "nothing carries me" and ask again.
	deciding map[string]store.Approval
	// closed stops expiry timers from firing once the service stops;
	// firing counts the expiries running, which Close waits for.
	closed  bool
	firing  sync.WaitGroup
	closing chan struct{} // closed by Close: waiting turns stop waiting
}

// ErrClosed is returned by Ask and Wait once the engine is closed (the
// service stops): the request stays pending in the store, and the next
// start resumes it.
var ErrClosed = errors.New("jarvisbot is stopping; the request stays pending until it is back")

// New returns an engine; call Resume once at start.
func New(opt Options) *Engine {
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.TTL <= 0 {
		opt.TTL = DefaultTTL
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Carrier == "" {
		opt.Carrier = "this process"
	}
	return &Engine{opt: opt, waiters: map[string][]chan store.Approval{}, timers: map[string]func() bool{}, live: map[string]bool{},
		handed: map[string]store.Approval{}, deciding: map[string]store.Approval{}, closing: make(chan struct{})}
}

// Request is what the runtime asks to run.
type Request struct {
	Tool    string // capability id
	Summary string // what will happen, in the owner's words
	Args    []byte
	Agent   string
	Chat    string
	// Apps are the apps whose words were in the turn that asks: none of
	// them may decide the request (X5).
	Apps []string
}

// newID returns 128 random bits, lowercase base32: unguessable and short
// enough for Telegram's 64-byte callback data.
func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random approval id: %w", err)
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}

// Ask stores a request and returns it. When the owner granted "always for
// this tool", the request is approved at once and never shown.
func (e *Engine) Ask(ctx context.Context, r Request) (store.Approval, error) {
	select {
	case <-e.closing:
		return store.Approval{}, ErrClosed
	default:
	}
	id, err := newID()
	if err != nil {
		return store.Approval{}, err
	}
	now := e.opt.Clock.Now()
	a := store.Approval{ID: id, Tool: r.Tool, Summary: r.Summary, Args: r.Args, Agent: r.Agent, Chat: r.Chat, Apps: r.Apps,
		State: store.ApprovalPending, CreatedAt: now, ExpiresAt: now.Add(e.opt.TTL)}
	if err := e.opt.Store.CreateApproval(ctx, a); err != nil {
		return a, err
	}
	granted, err := e.opt.Store.Granted(ctx, r.Tool)
	if err != nil {
		return a, err
	}
	if granted {
		return e.opt.Store.DecideApproval(ctx, id, store.ApprovalApproved, ByAlways, false, now)
	}
	e.mu.Lock()
	e.live[a.ID] = true
	e.mu.Unlock()
	e.schedule(a)
	if e.opt.Notify != nil {
		e.opt.Notify(a)
	}
	return a, nil
}

// schedule arms the expiry of a pending request.
func (e *Engine) schedule(a store.Approval) {
	d := a.ExpiresAt.Sub(e.opt.Clock.Now())
	stop := e.opt.Clock.AfterFunc(max(d, 0), func() {
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return // the next start expires it (Resume)
		}
		e.firing.Add(1)
		e.mu.Unlock()
		defer e.firing.Done()
		e.expire(a.ID)
	})
	e.mu.Lock()
	e.timers[a.ID] = stop
	e.mu.Unlock()
}

// Close disarms every expiry and waits for those already firing, so that
// nothing touches the store or the channels once the service closes them,
// and turns waiting for a decision stop waiting (ErrClosed): with the
// channels stopped, no decision can come. Pending requests stay pending in
// the store: the next start resumes them.
func (e *Engine) Close() {
	e.mu.Lock()
	if !e.closed {
		close(e.closing)
	}
	e.closed = true
	for id, stop := range e.timers {
		stop()
		delete(e.timers, id)
	}
	e.mu.Unlock()
	e.firing.Wait()
}

func (e *Engine) expire(id string) {
	a, err := e.opt.Store.DecideApproval(context.Background(), id, store.ApprovalExpired, "", false, e.opt.Clock.Now())
	if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		// The store is down: the request stays pending, and the turn
		// waiting for it (holding its chat) with it. It is tried again
		// until the engine closes; then the next start's Resume expires it.
		e.opt.Logger.Error("an approval request could not be expired; its turn waits until it is", "approval", id, "retry_in", ExpiryRetry, "err", err)
		e.schedule(store.Approval{ID: id, ExpiresAt: e.opt.Clock.Now().Add(ExpiryRetry)})
		return
	}
	e.done(a, err == nil)
}

// done wakes the waiters of a decided request.
func (e *Engine) done(a store.Approval, changed bool) {
	e.mu.Lock()
	ws := e.waiters[a.ID]
	live := e.live[a.ID]
	delete(e.live, a.ID)
	delete(e.waiters, a.ID)
	if stop, ok := e.timers[a.ID]; ok {
		stop()
		delete(e.timers, a.ID)
	}
	e.mu.Unlock()
	for _, w := range ws {
		w <- a
	}
	if changed && e.opt.Notify != nil {
		e.opt.Notify(a)
	}
	if changed && len(ws) == 0 && !live && e.opt.Orphan != nil {
		if e.opt.Watch > 0 {
			e.holdOrphan(a)
		} else {
			e.orphan(a)
		}
	}
}

// orphan hands a decision no turn waits for to Orphan, and holds it as
// carrying its turn until that turn takes it up.
func (e *Engine) orphan(a store.Approval) {
	e.mu.Lock()
	e.handed[a.ID] = a
	e.mu.Unlock()
	e.opt.Orphan(a)
}

// TakeUp says the turn of a decision given to Orphan goes on with it.
func (e *Engine) TakeUp(id string) {
	e.mu.Lock()
	delete(e.handed, id)
	e.mu.Unlock()
}

// holdOrphan hands a decision to Orphan after the grace, and only if no
// process claimed it by then: a turn waiting for it on another replica
// hears of it within Watch and claims it first.
func (e *Engine) holdOrphan(a store.Approval) {
	key := "orphan:" + a.ID
	stop := e.opt.Clock.AfterFunc(OrphanGrace*e.opt.Watch, func() {
		e.mu.Lock()
		delete(e.timers, key)
		if e.closed {
			e.mu.Unlock()
			return
		}
		e.firing.Add(1)
		e.mu.Unlock()
		defer e.firing.Done()
		ok, err := e.opt.Store.CarryApproval(context.Background(), a.ID, e.opt.Carrier)
		if err != nil {
			e.opt.Logger.Error("a decided approval request could not be claimed; the next start takes it up", "approval", a.ID, "err", err)
			return
		}
		if ok {
			e.orphan(a)
		}
	})
	e.mu.Lock()
	e.timers[key] = stop
	e.mu.Unlock()
}

// carry claims a decision the waiting turn is about to act on, when
// processes share the store.
func (e *Engine) carry(ctx context.Context, a store.Approval) (store.Approval, error) {
	if e.opt.Watch <= 0 {
		return a, nil
	}
	ok, err := e.opt.Store.CarryApproval(context.WithoutCancel(ctx), a.ID, e.opt.Carrier)
	if err != nil {
		return a, err
	}
	if !ok {
		return a, ErrCarriedElsewhere
	}
	return a, nil
}

// Wait blocks until the request is decided or expires, or ctx ends.
func (e *Engine) Wait(ctx context.Context, id string) (store.Approval, error) {
	w := make(chan store.Approval, 1)
	e.mu.Lock()
	e.waiters[id] = append(e.waiters[id], w)
	e.mu.Unlock()
	// It may have been decided before we started waiting.
	if a, err := e.opt.Store.Approval(ctx, id); err != nil || a.State != store.ApprovalPending {
		e.drop(id, w)
		if err != nil {
			// The turn stops here (its context ended during the look,
			// or the store failed): a later decision is an orphan, as
			// when it stops while waiting below.
			e.forget(id)
			return a, err
		}
		return e.carry(ctx, a) // decided already; done() clears it from live
	}
	// Another process's decision reaches this one only through the
	// store: look every Watch. (A nil channel never fires: one process.)
	var look <-chan struct{}
	if e.opt.Watch > 0 {
		ch, stop := e.every(e.opt.Watch)
		defer stop()
		look = ch
	}
	for {
		select {
		case a := <-w:
			return e.carry(ctx, a)
		case <-look:
			if a, err := e.opt.Store.Approval(ctx, id); err == nil && a.State != store.ApprovalPending {
				e.done(a, false) // wakes w, and any other waiter here; the decider notified
			}
		case <-ctx.Done():
			e.drop(id, w)
			e.forget(id) // the turn is gone: a later decision is an orphan
			return store.Approval{}, ctx.Err()
		case <-e.closing:
			e.drop(id, w)
			e.forget(id)
			return store.Approval{}, ErrClosed
		}
	}
}

// every sends on the returned channel every d of the engine's clock until
// stop is called; a tick not taken yet is not doubled.
func (e *Engine) every(d time.Duration) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	var (
		mu      sync.Mutex
		stopped bool
		cancel  func() bool
		arm     func()
	)
	arm = func() {
		cancel = e.opt.Clock.AfterFunc(d, func() {
			select {
			case ch <- struct{}{}:
			default:
			}
			mu.Lock()
			defer mu.Unlock()
			if !stopped {
				arm()
			}
		})
	}
	mu.Lock()
	arm()
	mu.Unlock()
	return ch, func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		cancel()
	}
}

func (e *Engine) forget(id string) {
	e.mu.Lock()
	delete(e.live, id)
	e.mu.Unlock()
}

func (e *Engine) drop(id string, w chan store.Approval) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.waiters[id] = slices.DeleteFunc(e.waiters[id], func(c chan store.Approval) bool { return c == w })
	if len(e.waiters[id]) == 0 {
		delete(e.waiters, id)
	}
}

// SetApprover sets Options.Approver after the engine exists: the owners
// are known only once the channels are up.
func (e *Engine) SetApprover(f func(user string) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opt.Approver = f
}

// IsApprover reports whether a user's decisions count.
func (e *Engine) IsApprover(user string) bool {
	if user == "console" {
		return true // the owner at the machine
	}
	if slices.Contains(e.opt.Approvers, user) {
		return true
	}
	e.mu.Lock()
	f := e.opt.Approver
	e.mu.Unlock()
	return f != nil && f(user)
}

// Decide records an approver's decision, once. A press by anyone else is
// EFORBIDDEN and changes nothing, and so is a decision by an app ("app:NAME")
// whose words were in the turn that asked (Request.Apps); a second decision is ECONFLICT and
// returns the request as the first decision left it; a decision after the
// expiry is ECONFLICT too (the request is expired).
func (e *Engine) Decide(ctx context.Context, id, by string, approve, always bool) (store.Approval, error) {
	return e.decide(ctx, id, by, approve, always, false)
}

// Withdraw denies a request for the app whose work raised it, when the app
// cancels that work (job_cancel): a denial is never a way around the
// owner, so the app's own words in the turn do not stop it.
func (e *Engine) Withdraw(ctx context.Context, id, app string) (store.Approval, error) {
	return e.decide(ctx, id, "app:"+app, false, false, true)
}

func (e *Engine) decide(ctx context.Context, id, by string, approve, always, withdraw bool) (store.Approval, error) {
	if !e.IsApprover(by) {
		return store.Approval{}, jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "only the owner's approvers can decide this request")
	}
	cur, err := e.opt.Store.Approval(ctx, id)
	if err != nil {
		return cur, err
	}
	if app, ok := strings.CutPrefix(by, "app:"); ok && !withdraw && slices.Contains(cur.Apps, app) {
		return cur, jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "approval %s was raised in a turn that held app %s's words (its job, chat or note): no app resolves an approval its own request raised; the owner decides with the buttons in chat", id, app)
	}
	if cur.State == store.ApprovalPending && !e.opt.Clock.Now().Before(cur.ExpiresAt) {
		e.expire(id)
		// Read again for the state the expiry left; when the store cannot
		// be read, the request as read says when it expired.
		if after, err := e.opt.Store.Approval(ctx, id); err == nil {
			cur = after
		}
		return cur, jarvisbot.Errorf(jarvisbot.ECONFLICT, "this request expired at %s and was denied", cur.ExpiresAt.Format("15:04"))
	}
	state := store.ApprovalDenied
	if approve {
		state = store.ApprovalApproved
	} else {
		always = false
	}
	if cur.State == store.ApprovalPending {
		e.mu.Lock()
		e.deciding[id] = cur
		e.mu.Unlock()
		defer func() {
			e.mu.Lock()
			delete(e.deciding, id)
			e.mu.Unlock()
		}()
	}
	a, err := e.opt.Store.DecideApproval(ctx, id, state, by, always, e.opt.Clock.Now())
	if err != nil {
		return a, err
	}
	if always {
		if err := e.opt.Store.Grant(ctx, a.Tool, by); err != nil {
			return a, err
		}
	}
	e.done(a, true)
	return a, nil
}

// Resume is called at start: requests that expired while jarvisbot was
// down are expired now; the others wait for their remaining time.
func (e *Engine) Resume(ctx context.Context) ([]store.Approval, error) {
	list, err := e.opt.Store.PendingApprovals(ctx)
	if err != nil {
		return nil, err
	}
	var pending []store.Approval
	for _, a := range list {
		if !e.opt.Clock.Now().Before(a.ExpiresAt) {
			e.expire(a.ID)
			continue
		}
		e.schedule(a)
		pending = append(pending, a)
	}
	return pending, nil
}

// PendingIn returns the requests of a chat that wait for a decision.
func (e *Engine) PendingIn(ctx context.Context, chat string) ([]store.Approval, error) {
	list, err := e.opt.Store.PendingApprovals(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list, func(a store.Approval) bool { return a.Chat != chat }), nil
}

// CarryingIn returns the requests that carry a chat's turns: those that
// wait for a decision, those being decided, and those decided since that
// were given to Orphan and whose turn has not taken them up yet. A turn
// run again after a restart leaves its calls to them: a decision pressed
// just after the start, before the turn looked, is not asked for a
// second time. The store is read first: a request it no longer lists as
// pending is in deciding from before the store changed until it is in
// handed, so reading the engine's lists after it finds each one.
func (e *Engine) CarryingIn(ctx context.Context, chat string) ([]store.Approval, error) {
	out, err := e.PendingIn(ctx, chat)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, list := range []map[string]store.Approval{e.deciding, e.handed} {
		for _, a := range list {
			if a.Chat == chat && !slices.ContainsFunc(out, func(o store.Approval) bool { return o.ID == a.ID }) {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// Revoke withdraws "always for this tool".
func (e *Engine) Revoke(ctx context.Context, tool string) error { return e.opt.Store.Revoke(ctx, tool) }
