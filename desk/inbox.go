package desk

import (
	"context"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/store"
)

// Per-chat order and the inbox (CH1, X4): each chat's messages are
// answered in order, one turn at a time, while different chats run at
// once. A message stays in the store's inbox until it is answered (or its
// pending approval carries it), so a restart answers what was left and
// repeats nothing.

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
	// file is a photo or document the turn reads (CH4).
	file *store.IncomingFile
	// answered, when set, hears the turn's error once it is done (Ask).
	answered chan<- error
}

type chatQueue struct {
	msgs    []queued
	running bool
	// held: a budget stopped the first message; it waits (budget.go).
	held   bool
	cancel context.CancelFunc
	// behind counts, with replicas, the chat's messages waiting in the
	// store behind the one this replica answers (AnswerChat).
	behind int
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
		d.enqueue(ctx, queued{Message: channels.Message{Chat: m.Chat, User: m.User, Name: m.Name, Text: m.Text}, inbox: m.ID, retry: true, audio: m.Audio, file: m.File})
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
		// A chat a budget stopped tries its first message again: the
		// limit may have been raised elsewhere (the dashboard).
		q.running, q.held = true, false
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
		released := d.releases
		d.mu.Unlock()
		done, err := d.turn(tctx, m)
		cancel()
		if !done && overBudget(m, err) {
			if d.hold(chat, m, err, released) {
				return
			}
			continue // the owner raised the limit while the turn ran: try it again
		}
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
