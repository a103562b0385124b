// Package budget bounds what the model calls spend (A5): for the whole
// installation and per agent, a daily and a monthly limit in tokens or US
// dollars (priced by the usage price table), counted in the owner's time
// zone from the record of model calls.
//
// The runtime asks Allow before a turn. At 80% of a limit the owner is
// told once per limit and period; at 100% the turn stops before any
// model call with an error that says which limit, what was spent and when
// it resets, and the owner is offered, once per reached limit, buttons to
// raise it for the period or to allow one more turn (Decide). What was
// told and offered is in the store, so a restart repeats nothing. A limit
// the owner raised is a new limit: its 80% is told once more.
package budget

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
)

// WarnAt is the share of a limit at which the owner is told, once.
const WarnAt = 0.8

// Limit is a budget for one period: US dollars, tokens, or both (each is
// checked); zero is no limit.
type Limit struct {
	USD    float64
	Tokens int64
}

// IsZero reports whether l limits nothing.
func (l Limit) IsZero() bool { return l.USD <= 0 && l.Tokens <= 0 }

// String is the limit as the owner writes it in the config: "$5.00",
// "2000000 tokens", both joined by "and", or "no limit".
func (l Limit) String() string {
	var parts []string
	if l.USD > 0 {
		parts = append(parts, Dollars(l.USD))
	}
	if l.Tokens > 0 {
		parts = append(parts, Tokens(l.Tokens)+" tokens")
	}
	if len(parts) == 0 {
		return "no limit"
	}
	return strings.Join(parts, " and ")
}

// Tokens writes a count with thousands separated, "2,000,000", as the
// config takes it too.
func Tokens(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// scale is l times f, tokens rounded up.
func (l Limit) scale(f float64) Limit {
	return Limit{USD: l.USD * f, Tokens: int64(float64(l.Tokens)*f + 0.999)}
}

// Dollars writes an amount as "$5.00", or with four decimals below a cent.
func Dollars(v float64) string {
	if v != 0 && v < 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// Pair is a daily and a monthly limit.
type Pair struct {
	Day, Month Limit
}

// Limits are the configured budgets: the whole installation's and each
// agent's by name. An agent without an entry has only the installation's.
type Limits struct {
	All    Pair
	Agents map[string]Pair
}

// Notifier tells the owner, in the owner's main chat.
type Notifier interface {
	// Warn says a limit is at 80% of what it allows.
	Warn(ctx context.Context, text string) error
	// Reached says a limit stopped a turn, with the offer's buttons.
	Reached(ctx context.Context, text string, o store.BudgetOffer) error
}

// Store is what budgets read and keep.
type Store interface {
	store.Budgets
}

// Options configure a Checker.
type Options struct {
	Store Store
	// Limits returns the configured budgets; the owner's limits in the
	// store win over them.
	Limits func() Limits
	Prices usage.Prices
	Zone   *time.Location // the owner's; nil is the machine's
	Clock  clock.Clock
	Notify Notifier
	Log    *slog.Logger
}

// Checker is the runtime's Budget.
type Checker struct {
	opt Options
}

// New returns a checker.
func New(opt Options) *Checker {
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.Zone == nil {
		opt.Zone = time.Local
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Limits == nil {
		opt.Limits = func() Limits { return Limits{} }
	}
	return &Checker{opt: opt}
}

// Rule is one limit as it applies now: whose, which period, how much
// (with the owner's raises for this period), and when the period began
// and ends.
type Rule struct {
	Agent  string // "" for the whole installation
	Period string // store.PeriodDay or store.PeriodMonth
	Limit  Limit
	Start  time.Time
	Resets time.Time
	// Raised is what the owner's raises this period multiplied the limit
	// by (1 for none).
	Raised float64
}

// Whose names the limit's scope for the owner.
func (r Rule) Whose() string {
	if r.Agent == "" {
		return "the whole installation"
	}
	return "agent " + r.Agent
}

func (r Rule) periodWord() string {
	if r.Period == store.PeriodMonth {
		return "monthly"
	}
	return "daily"
}

func (r Rule) spentWhen() string {
	if r.Period == store.PeriodMonth {
		return "this month"
	}
	return "today"
}

// key names the rule's limit in its period, for the notices and offers.
func (r Rule) key() string {
	return r.Agent + "|" + r.Period + "|" + r.Start.UTC().Format(time.RFC3339) + "|" + r.Limit.String()
}

// Spent is what a period's calls used, in the limit's units.
type Spent struct {
	USD    float64
	Tokens int64
}

// share is spent over the limit, the larger of money and tokens.
func (s Spent) share(l Limit) float64 {
	var f float64
	if l.USD > 0 {
		f = s.USD / l.USD
	}
	if l.Tokens > 0 {
		f = max(f, float64(s.Tokens)/float64(l.Tokens))
	}
	return f
}

// Against writes what was spent in the units of l: "$5.12 of $5.00".
func (s Spent) Against(l Limit) string {
	var parts []string
	if l.USD > 0 {
		parts = append(parts, Dollars(s.USD)+" of "+Dollars(l.USD))
	}
	if l.Tokens > 0 {
		parts = append(parts, Tokens(s.Tokens)+" of "+Tokens(l.Tokens)+" tokens")
	}
	return strings.Join(parts, ", ")
}

// Over is a reached limit: the error a stopped turn returns.
type Over struct {
	Rule  Rule
	Spent Spent
	Zone  *time.Location
	// Offer is the buttons' offer the owner has for it ("" if none could
	// be made).
	Offer string
}

func (o *Over) Error() string {
	return fmt.Sprintf("the %s budget of %s is reached: %s spent %s; it resets %s",
		o.Rule.periodWord(), o.Rule.Whose(), o.Spent.Against(o.Rule.Limit), o.Rule.spentWhen(), when(o.Rule.Resets, o.Zone))
}

// Key names the reached limit and its period: a chat told of it once
// need not be told again.
func (o *Over) Key() string { return o.Rule.key() }

func when(t time.Time, loc *time.Location) string {
	return "at " + t.In(loc).Format("15:04 MST (Mon 2 Jan)")
}

// Rules are the limits that apply to agent now: its own and the whole
// installation's, the owner's limits over the config's, each multiplied
// by the raises the owner granted for its period.
func (c *Checker) Rules(ctx context.Context, agent string) ([]Rule, error) {
	now := c.opt.Clock.Now()
	day, month := usage.DayStart(now, c.opt.Zone), usage.MonthStart(now, c.opt.Zone)
	starts := map[string][2]time.Time{
		store.PeriodDay:   {day, time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, c.opt.Zone)},
		store.PeriodMonth: {month, time.Date(month.Year(), month.Month()+1, 1, 0, 0, 0, 0, c.opt.Zone)},
	}
	lim, err := c.Effective(ctx)
	if err != nil {
		return nil, err
	}
	scopes := []string{agent, ""}
	if agent == "" {
		scopes = scopes[1:]
	}
	var rules []Rule
	for _, scope := range scopes {
		p, ok := lim.Agents[scope]
		if scope == "" {
			p, ok = lim.All, true
		}
		if !ok {
			continue
		}
		for _, period := range []string{store.PeriodDay, store.PeriodMonth} {
			l := p.Day
			if period == store.PeriodMonth {
				l = p.Month
			}
			if l.IsZero() {
				continue
			}
			rules = append(rules, Rule{Agent: scope, Period: period, Limit: l, Start: starts[period][0], Resets: starts[period][1], Raised: 1})
		}
	}
	if len(rules) == 0 {
		return nil, nil // no limit: the offers need no reading
	}
	offers, err := c.opt.Store.BudgetOffers(ctx, month)
	if err != nil {
		return nil, err
	}
	for i, r := range rules {
		for _, o := range offers {
			if o.State == store.OfferRaised && o.Agent == r.Agent && o.Period == r.Period && o.Start.Equal(r.Start) {
				rules[i].Raised *= o.Factor
			}
		}
		rules[i].Limit = r.Limit.scale(rules[i].Raised)
	}
	return rules, nil
}

// Effective is the configured budgets with the owner's limits over them.
func (c *Checker) Effective(ctx context.Context) (Limits, error) {
	base := c.opt.Limits()
	out := Limits{All: base.All, Agents: map[string]Pair{}}
	for name, p := range base.Agents {
		out.Agents[name] = p
	}
	own, err := c.opt.Store.BudgetLimits(ctx)
	if err != nil {
		return Limits{}, err
	}
	for _, l := range own {
		p := out.All
		if l.Agent != "" {
			p = out.Agents[l.Agent]
		}
		set := Limit{USD: l.USD, Tokens: l.Tokens}
		if l.Period == store.PeriodMonth {
			p.Month = set
		} else {
			p.Day = set
		}
		if l.Agent == "" {
			out.All = p
		} else {
			out.Agents[l.Agent] = p
		}
	}
	return out, nil
}

// Spent sums the calls of each rule's scope and period.
func (c *Checker) Spent(ctx context.Context, rules []Rule) ([]Spent, error) {
	sums := map[time.Time][]store.ModelCall{}
	out := make([]Spent, len(rules))
	for i, r := range rules {
		calls, ok := sums[r.Start]
		if !ok {
			var err error
			if calls, err = c.opt.Store.ModelCallSums(ctx, r.Start); err != nil {
				return nil, err
			}
			sums[r.Start] = calls
		}
		var t usage.Totals
		for _, call := range calls {
			if r.Agent == "" || call.Agent == r.Agent {
				t.Add(call, c.opt.Prices)
			}
		}
		out[i] = Spent{USD: t.Cost, Tokens: int64(t.Tokens())}
	}
	return out, nil
}

// SourceChat is the source of a turn that answers the owner's message:
// only such a turn takes the one more turn the owner allowed, which is
// meant for the message that waits (a scheduled run or an app's job
// never takes it).
const SourceChat = "chat"

// Allow says whether agent may start a turn caused by source: nil, or an
// *Over for the first limit reached. A reached limit stops the turn
// unless the owner allowed one more turn of the agent (taken here, by a
// turn from SourceChat). A budget that cannot be read stops nothing: the
// failure is logged.
func (c *Checker) Allow(ctx context.Context, agent, source string) error {
	rules, err := c.Rules(ctx, agent)
	if err != nil {
		c.opt.Log.Error("reading the budgets; the turn goes on unchecked", "agent", agent, "err", err)
		return nil
	}
	if len(rules) == 0 {
		return nil
	}
	spent, err := c.Spent(ctx, rules)
	if err != nil {
		c.opt.Log.Error("summing what was spent; the turn goes on unchecked", "agent", agent, "err", err)
		return nil
	}
	var over *Over
	for i, r := range rules {
		share := spent[i].share(r.Limit)
		switch {
		case share >= 1 && over == nil:
			over = &Over{Rule: r, Spent: spent[i], Zone: c.opt.Zone}
		case share >= WarnAt && share < 1:
			c.warn(ctx, r, spent[i])
		}
	}
	if over == nil {
		return nil
	}
	if source == SourceChat {
		taken, err := c.opt.Store.TakeBudgetTurn(ctx, agent)
		if err != nil {
			c.opt.Log.Error("taking an allowed turn", "agent", agent, "err", err)
		}
		if taken {
			c.opt.Log.Info("over budget, but the owner allowed one more turn", "agent", agent, "limit", over.Rule.key())
			return nil
		}
	}
	c.offer(ctx, over, agent)
	return over
}

// warn tells the owner once that a limit is at 80%.
func (c *Checker) warn(ctx context.Context, r Rule, s Spent) {
	key := "80|" + r.key()
	first, err := c.opt.Store.MarkBudgetNotice(ctx, key, c.opt.Clock.Now())
	if err != nil || !first || c.opt.Notify == nil {
		if err != nil {
			c.opt.Log.Error("recording a budget notice", "err", err)
		}
		return
	}
	text := fmt.Sprintf("Budget: %s spent %s, %.0f%% of the %s budget of %s. At the limit its turns stop and wait for you; it resets %s.",
		s.Against(r.Limit), r.spentWhen(), 100*s.share(r.Limit), r.periodWord(), r.Whose(), when(r.Resets, c.opt.Zone))
	if err := c.opt.Notify.Warn(ctx, text); err != nil {
		c.opt.Log.Error("telling the owner a budget is at 80%; the next turn tries again", "err", err)
		if err := c.opt.Store.UnmarkBudgetNotice(ctx, key); err != nil {
			c.opt.Log.Error("forgetting an unsent budget notice", "err", err)
		}
	}
}

// offer shows the owner the buttons for a reached limit, once while they
// are open: a second stopped turn finds them offered already.
func (c *Checker) offer(ctx context.Context, over *Over, stopped string) {
	offers, err := c.opt.Store.BudgetOffers(ctx, over.Rule.Start)
	if err != nil {
		c.opt.Log.Error("reading budget offers", "err", err)
		return
	}
	for _, o := range offers {
		if o.State == store.OfferOpen && o.Agent == over.Rule.Agent && o.Period == over.Rule.Period && o.Start.Equal(over.Rule.Start) {
			over.Offer = o.ID
			return
		}
	}
	id, err := newID()
	if err != nil {
		c.opt.Log.Error("making a budget offer", "err", err)
		return
	}
	o := store.BudgetOffer{ID: id, Agent: over.Rule.Agent, Period: over.Rule.Period, Start: over.Rule.Start, Stopped: stopped, State: store.OfferOpen, CreatedAt: c.opt.Clock.Now()}
	if err := c.opt.Store.AddBudgetOffer(ctx, o); err != nil {
		c.opt.Log.Error("storing a budget offer", "err", err)
		return
	}
	over.Offer = id
	// The 80% notice is moot once the limit is reached.
	if _, err := c.opt.Store.MarkBudgetNotice(ctx, "80|"+over.Rule.key(), c.opt.Clock.Now()); err != nil {
		c.opt.Log.Warn("recording a budget notice", "err", err)
	}
	if c.opt.Notify == nil {
		return
	}
	who := "every agent"
	if over.Rule.Agent != "" {
		who = "agent " + over.Rule.Agent
	}
	text := fmt.Sprintf("Over budget: %s. Turns of %s wait (scheduled runs are skipped) until you raise the limit or allow one more turn.",
		over.Error(), who)
	if err := c.opt.Notify.Reached(ctx, text, o); err != nil {
		// Buttons nobody can see would hold the limit shut: the next
		// stopped turn offers them again.
		c.opt.Log.Error("showing the owner a reached budget; the next stopped turn tries again", "err", err)
		if err := c.opt.Store.DropBudgetOffer(ctx, o.ID); err != nil {
			c.opt.Log.Error("forgetting an unseen budget offer", "err", err)
		}
		over.Offer = ""
	}
}

// Choices of a budget offer's buttons.
const (
	ChoiceHalf   = "h" // raise by half for the period
	ChoiceDouble = "d" // double for the period
	ChoiceOne    = "1" // allow one more turn
)

// Decide takes the owner's press on an offer, once: a raise for the
// offer's period, or one more turn of the agent it stopped. It returns
// the decided offer and what came of it, for the owner. A second
// decision is ECONFLICT, an unknown offer ENOTFOUND, a choice it does not
// know EINVALID; the caller checks that by is the owner.
func (c *Checker) Decide(ctx context.Context, id, by, choice string) (store.BudgetOffer, string, error) {
	state, factor := store.OfferRaised, 0.0
	switch choice {
	case ChoiceHalf:
		factor = 1.5
	case ChoiceDouble:
		factor = 2
	case ChoiceOne:
		state = store.OfferAllowed
	default:
		return store.BudgetOffer{}, "", jarvisbot.Errorf(jarvisbot.EINVALID, "budget choice %q: want %s, %s or %s", choice, ChoiceHalf, ChoiceDouble, ChoiceOne)
	}
	o, err := c.opt.Store.DecideBudgetOffer(ctx, id, state, factor, by, c.opt.Clock.Now())
	if err != nil {
		return o, Outcome(o), err
	}
	return o, Outcome(o), nil
}

// Outcome says how an offer was decided.
func Outcome(o store.BudgetOffer) string {
	whose := "the whole installation"
	if o.Agent != "" {
		whose = "agent " + o.Agent
	}
	period := "today"
	if o.Period == store.PeriodMonth {
		period = "this month"
	}
	switch o.State {
	case store.OfferRaised:
		how := "by half"
		if o.Factor == 2 {
			how = "to double"
		}
		return fmt.Sprintf("Raised %s for %s: the budget of %s; the waiting messages are answered now.", how, period, whose)
	case store.OfferAllowed:
		return fmt.Sprintf("One more turn allowed for agent %s; the next turn after it waits again.", o.Stopped)
	case store.OfferOpen:
		return "Still open."
	}
	return o.State
}

// newID returns 128 random bits, lowercase base32, as approvals' ids are:
// unguessable and short enough for Telegram's 64-byte callback data.
func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random budget offer id: %w", err)
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}
