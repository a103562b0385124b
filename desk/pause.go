package desk

import (
	"context"

	"github.com/jarvisbot/jarvisbot/channels"
)

// Pause: while every agent is paused, messages wait in the inbox and each
// chat is told once who paused and how to go on; Resumed answers them.

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
