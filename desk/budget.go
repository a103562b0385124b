package desk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/budget"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
)

// Budgets (A5): a turn a budget stopped before its model call leaves its
// message waiting at the head of its chat, as a pause does; the chat is
// told once why, and the owner gets buttons in the main chat to raise the
// limit for the period or allow one more turn. A press (owner only,
// decided once) or the period's end lets the waiting chats go on
// (Released).

// BudgetDecider decides the owner's press on a reached budget's buttons
// (budget.Checker).
type BudgetDecider interface {
	Decide(ctx context.Context, id, by, choice string) (store.BudgetOffer, string, error)
}

// budgetPrefix starts the data of a budget button: "bu:<id>:<h|d|1>", 31
// bytes, an id into the store.
const budgetPrefix = "bu:"

// isOfferID reports whether id has the shape of an offer's id: 128
// random bits in lowercase base32, 26 letters. Anything else in a press
// is not ours.
func isOfferID(id string) bool {
	if len(id) != 26 {
		return false
	}
	for _, c := range id {
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// BudgetReached shows the owner a reached budget with its buttons, in
// chat (the owner's main chat). It is the budget's Notifier.Reached.
func (d *Desk) BudgetReached(ctx context.Context, chat, text string, o store.BudgetOffer) error {
	if _, ok := d.channels[platform(chat)]; !ok {
		return fmt.Errorf("no channel for the owner's chat %s is running here", chat)
	}
	whose := "today"
	if o.Period == store.PeriodMonth {
		whose = "this month"
	}
	buttons := [][]channels.Button{{
		{Label: "Raise by half for " + whose, Data: budgetPrefix + o.ID + ":" + budget.ChoiceHalf, Keys: []string{"half", "h"}},
		{Label: "Double for " + whose, Data: budgetPrefix + o.ID + ":" + budget.ChoiceDouble, Keys: []string{"double", "d"}},
	}, {
		{Label: "Allow one more turn", Data: budgetPrefix + o.ID + ":" + budget.ChoiceOne, Keys: []string{"one", "o"}},
	}}
	if d.send(ctx, channels.Outgoing{Chat: chat, Text: text, Buttons: buttons}) == "" {
		return fmt.Errorf("the budget's buttons could not be sent to %s", chat)
	}
	return nil
}

// budgetPress takes a press on a budget button: only the owner decides,
// once; anyone else is told so and changes nothing; data that is not an
// offer's is refused; a late or second press sees the outcome.
func (d *Desk) budgetPress(ctx context.Context, p channels.Press, rest string, answer func(string)) {
	id, choice, ok := strings.Cut(rest, ":")
	if !ok || !isOfferID(id) || (choice != budget.ChoiceHalf && choice != budget.ChoiceDouble && choice != budget.ChoiceOne) {
		answer("This button is not mine, or no longer valid.")
		return
	}
	if !d.isOwner(p.User) {
		answer("Only the owner can decide this.")
		return
	}
	if d.opt.Budget == nil {
		answer("Budgets are not checked here.")
		return
	}
	o, outcome, err := d.opt.Budget.Decide(ctx, id, p.User, choice)
	switch jarvisbot.ErrorCode(err) {
	case "":
		answer(outcome)
		d.showBudgetOutcome(ctx, p, outcome)
		d.Released()
	case jarvisbot.ECONFLICT:
		answer("Already decided: " + budget.Outcome(o))
		d.showBudgetOutcome(ctx, p, budget.Outcome(o))
	case jarvisbot.ENOTFOUND:
		answer("This offer is unknown (it may be from another jarvisbot).")
	default:
		answer("The decision could not be saved; try again.")
		d.log.Error("deciding a budget offer", "err", err)
	}
}

// showBudgetOutcome replaces the buttons of the pressed message with what
// came of the press.
func (d *Desk) showBudgetOutcome(ctx context.Context, p channels.Press, outcome string) {
	ch, ok := d.channels[platform(p.Chat)]
	if !ok || p.MessageID == "" {
		return
	}
	if err := ch.Edit(ctx, p.Chat, p.MessageID, outcome, nil); err != nil {
		d.log.Warn("editing the budget message", "chat", p.Chat, "err", err)
	}
}

// overBudget reports whether a turn's error is a budget's stop of a
// message that can wait: not a decided approval's turn, nor one whose
// caller waits for its answer (chat -m).
func overBudget(m queued, err error) bool {
	return errors.Is(err, agents.ErrOverBudget) && m.approval == nil && m.answered == nil
}

// tellOver tells the chat, once per reached limit and period, why its
// message waits.
func (d *Desk) tellOver(ctx context.Context, m queued, err error) {
	key := err.Error()
	var over *budget.Over
	if errors.As(err, &over) {
		key = over.Key()
	}
	d.mu.Lock()
	if d.overTold == nil {
		d.overTold = map[string]string{}
	}
	told := d.overTold[m.Chat] == key
	d.overTold[m.Chat] = key
	d.mu.Unlock()
	if told {
		return
	}
	reason := strings.TrimPrefix(err.Error(), agents.ErrOverBudget.Error()+": ")
	text := "I did not start: " + reason + ". Your message waits: it is answered once you raise the limit or allow one more turn (the buttons in your main chat), or when the limit resets."
	d.send(context.WithoutCancel(ctx), channels.Outgoing{Chat: m.Chat, Text: text, ReplyTo: m.ID})
}

// hold puts a message a budget stopped back at the head of its chat and
// stops the chat's worker; the chat goes on when Released. It arms one
// release for the end of the period, so a chat nobody presses for is
// answered once the limit resets. released is the count of releases when
// the message's turn began: when one came since (the owner pressed while
// the chat was being told), the chat is not held, and hold reports false
// for the worker to go on with the message.
func (d *Desk) hold(chat string, m queued, err error, released int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.chats[chat]
	q.msgs = append([]queued{m}, q.msgs...)
	if d.releases != released {
		return false
	}
	q.held, q.running = true, false
	var over *budget.Over
	if !errors.As(err, &over) || over.Rule.Resets.IsZero() {
		return true
	}
	at := over.Rule.Resets
	if d.releaseStop != nil && !d.releaseAt.After(at) {
		return true // an earlier release is armed
	}
	if d.releaseStop != nil {
		d.releaseStop()
	}
	// A second past the period's start, so that the new period counts.
	wait := at.Sub(d.now()) + time.Second
	d.releaseAt = at
	d.releaseStop = d.clock().AfterFunc(wait, func() {
		d.mu.Lock()
		d.releaseStop = nil
		d.mu.Unlock()
		d.Released()
	})
	return true
}

// Released lets the chats a budget stopped go on: the owner raised a
// limit or allowed one more turn, or a period ended. Each waiting message
// is tried again; one still over its budget waits again, and its chat is
// told again.
func (d *Desk) Released() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.releases++
	d.overTold = nil
	paused, _ := d.paused()
	for chat, q := range d.chats {
		if !q.held {
			continue
		}
		q.held = false
		if len(q.msgs) > 0 && !q.running && !paused && !d.draining {
			q.running = true
			d.workers.Add(1)
			go d.work(d.base, chat)
		}
	}
}

func (d *Desk) clock() clock.Clock {
	if d.opt.Clock == nil {
		return clock.Real{}
	}
	return d.opt.Clock
}

func (d *Desk) now() time.Time { return d.clock().Now() }

// stopRelease disarms the release at the period's end (Drain).
func (d *Desk) stopRelease() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.releaseStop != nil {
		d.releaseStop()
		d.releaseStop = nil
	}
}

// BudgetNotifier is the budget's Notifier over this desk: the owner is
// told in chat, the owner's main chat.
func (d *Desk) BudgetNotifier(chat string) budget.Notifier { return budgetNotifier{d, chat} }

type budgetNotifier struct {
	d    *Desk
	chat string
}

func (n budgetNotifier) Warn(ctx context.Context, text string) error {
	return n.d.Report(ctx, n.chat, text)
}

func (n budgetNotifier) Reached(ctx context.Context, text string, o store.BudgetOffer) error {
	return n.d.BudgetReached(ctx, n.chat, text, o)
}
