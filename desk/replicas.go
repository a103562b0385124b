package desk

import (
	"context"
	"errors"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/store"
)

// Turns across replicas (ST2, CH1): with Options.Queue set, a message is
// stored and queued, and whichever replica holds its chat answers the
// chat's waiting messages from the store, oldest first (AnswerChat).

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

// errHandedOver ends a turn whose chat this replica no longer holds, or
// which this replica stops: the message stays waiting, and the next
// holder goes on from what the turn stored. It is no owner's /cancel.
var errHandedOver = errors.New("the chat is handed to another replica")

// Later is what AnswerChat returns when the chat must wait: the queue
// tries the chat again after Wait, on whichever replica takes it then
// (it knows the error by RetryIn).
type Later struct {
	Wait   time.Duration
	Reason string
}

func (l *Later) Error() string { return "answered later: " + l.Reason }

// RetryIn is how long the chat waits before it is tried again.
func (l *Later) RetryIn() time.Duration { return l.Wait }

// Waits before a chat is tried again: while paused, the owner resumes
// by hand; a stopping replica hands the chat on at once.
const (
	pausedWait   = 5 * time.Second
	stoppingWait = 0
	elsewhere    = 30 * time.Second
	// A chat a budget stopped is tried again now and then: the limit may
	// be raised on another replica, or its period end.
	overBudgetWait = time.Minute
)

// StopTurns makes the desk take up no chat from now on (AnswerChat says
// Later): a stopping replica hands its chats on. Drain then waits for
// the turns in progress.
func (d *Desk) StopTurns() {
	d.mu.Lock()
	d.draining = true
	d.mu.Unlock()
}

// queue hands a stored message to the queue. A message it cannot take
// waits in the inbox, where the queue's sweep finds it.
func (d *Desk) queue(ctx context.Context, m channels.Message, inbox int64) {
	d.mu.Lock()
	paused, by := d.paused()
	tell := paused && d.tellPaused(m.Chat)
	d.mu.Unlock()
	if tell {
		d.sayPaused(ctx, m, by)
	}
	if err := d.opt.Queue.Add(ctx, m.Chat, inbox); err != nil {
		d.log.Error("queueing a received message; it is answered once the queue finds it waiting", "chat", m.Chat, "err", err)
	}
}

// AnswerChat answers the chat's waiting messages in order until none is
// left; the turn queue calls it while this replica holds the chat. It
// returns a *Later when the chat must wait: jarvisbot is
// paused, this replica stops, or its channel does not run here.
func (d *Desk) AnswerChat(ctx context.Context, chat string) error {
	d.mu.Lock()
	if d.draining {
		d.mu.Unlock()
		return &Later{Wait: stoppingWait, Reason: "this replica is stopping"}
	}
	q := d.chats[chat]
	if q == nil {
		q = &chatQueue{}
		d.chats[chat] = q
	}
	d.workers.Add(1)
	d.mu.Unlock()
	defer d.workers.Done()
	defer func() {
		d.mu.Lock()
		q.behind = 0 // the chat is let go: its messages wait for any replica
		d.mu.Unlock()
	}()
	if _, ok := d.channels[platform(chat)]; !ok {
		return &Later{Wait: elsewhere, Reason: "the chat's channel does not run on this replica"}
	}
	tctx, release := d.held(ctx)
	defer release()
	for {
		if err := d.later(tctx); err != nil {
			return err
		}
		more, err := d.answerNext(tctx, chat, q)
		if err != nil || !more {
			return err
		}
	}
}

// held returns the context of a turn that outlives neither the hold on
// its chat nor this replica's run, and says so by its cause.
func (d *Desk) held(hold context.Context) (context.Context, func()) {
	tctx, cancel := context.WithCancelCause(context.WithoutCancel(hold))
	stopHold := context.AfterFunc(hold, func() { cancel(errHandedOver) })
	stopBase := context.AfterFunc(d.base, func() { cancel(errHandedOver) })
	return tctx, func() {
		stopBase()
		stopHold()
		cancel(nil)
	}
}

// later says why a held chat must wait now (jarvisbot is paused, or this
// replica stops), or nil when its next message may be answered.
func (d *Desk) later(ctx context.Context) error {
	d.mu.Lock()
	paused, _ := d.paused()
	draining := d.draining
	d.mu.Unlock()
	switch {
	case paused:
		return &Later{Wait: pausedWait, Reason: "jarvisbot is paused"}
	case draining || ctx.Err() != nil:
		return &Later{Wait: stoppingWait, Reason: "this replica is stopping"}
	}
	return nil
}

// answerNext answers the chat's oldest waiting message; more says whether
// to look for another.
func (d *Desk) answerNext(ctx context.Context, chat string, q *chatQueue) (more bool, err error) {
	waiting, err := d.opt.Store.WaitingIn(ctx, chat)
	if err != nil {
		return false, err
	}
	d.mu.Lock()
	q.behind = max(len(waiting)-1, 0)
	d.mu.Unlock()
	if len(waiting) == 0 {
		return false, nil
	}
	w := waiting[0]
	if err := d.opt.Store.Begin(ctx, w.ID); jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
		return true, nil // answered meanwhile
	} else if err != nil {
		return false, err
	}
	m := queued{Message: channels.Message{Chat: w.Chat, User: w.User, Name: w.Name, Text: w.Text}, inbox: w.ID, retry: w.Begun, audio: w.Audio, file: w.File}
	turnCtx, stopTurn := context.WithCancel(ctx)
	d.mu.Lock()
	q.running, q.cancel = true, stopTurn // the owner's /cancel
	d.mu.Unlock()
	done, terr := d.turn(turnCtx, m)
	d.mu.Lock()
	q.running, q.cancel = false, nil
	d.mu.Unlock()
	stopTurn()
	if !done && overBudget(m, terr) {
		return false, &Later{Wait: overBudgetWait, Reason: "a budget stopped its turn"}
	}
	if !done {
		return false, &Later{Wait: stoppingWait, Reason: "the turn was stopped before its end"}
	}
	return true, d.opt.Store.Answered(context.WithoutCancel(ctx), w.ID)
}

// continueHeld goes on with a decided approval's turn while holding its
// chat, so it runs neither beside another turn of the chat nor twice.
func (d *Desk) continueHeld(a store.Approval) {
	d.mu.Lock()
	if d.draining {
		d.mu.Unlock()
		return // the approval stays decided; the next start goes on with it
	}
	d.workers.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.workers.Done()
		held, release, err := d.opt.Queue.Hold(d.base, a.Chat)
		if err != nil {
			if d.base.Err() == nil {
				d.log.Error("going on with a decided approval's turn", "chat", a.Chat, "err", err)
			}
			return
		}
		defer release()
		tctx, stop := d.held(held)
		defer stop()
		if _, err := d.turn(tctx, queued{Message: channels.Message{Chat: a.Chat}, approval: &a}); err != nil && tctx.Err() == nil {
			d.log.Debug("a decided approval's turn ended with an error", "chat", a.Chat, "err", err)
		}
	}()
}
