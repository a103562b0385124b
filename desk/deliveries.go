package desk

import (
	"context"
	"fmt"
	"time"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/store"
)

// Deliveries (CH1, CH3): a platform's delivery is answered once however
// often it comes, a reply that could not be sent is kept and sent again,
// and scheduled reports go out through the channels.

// leaseKeptReplies is the role of the process sending kept replies again.
const leaseKeptReplies = "kept-replies"

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
