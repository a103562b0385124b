package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Budgets = (*DB)(nil)

// BudgetLimits returns the owner's limits, by agent ("" first) and period.
func (db *DB) BudgetLimits(ctx context.Context) ([]store.BudgetLimit, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT agent, period, usd, tokens, set_at FROM budget_limits ORDER BY agent, period`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading budget limits from %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.BudgetLimit
	for rows.Next() {
		var l store.BudgetLimit
		var at string
		if err := rows.Scan(&l.Agent, &l.Period, &l.USD, &l.Tokens, &at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading budget limits from %s: %w", db.path, err)
		}
		if l.SetAt, err = parseTime(at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading budget limits from %s: %w", db.path, err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading budget limits from %s: %w", db.path, err)
	}
	return out, nil
}

// SetBudgetLimit sets or replaces the owner's limit of one agent and
// period.
func (db *DB) SetBudgetLimit(ctx context.Context, l store.BudgetLimit) error {
	if err := validPeriod(l.Period); err != nil {
		return err
	}
	if l.USD < 0 || l.Tokens < 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "a budget limit cannot be negative")
	}
	at := l.SetAt
	if at.IsZero() {
		at = db.now()
	}
	_, err := db.db.ExecContext(ctx, `INSERT INTO budget_limits (agent, period, usd, tokens, set_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (agent, period) DO UPDATE SET usd = excluded.usd, tokens = excluded.tokens, set_at = excluded.set_at`,
		l.Agent, l.Period, l.USD, l.Tokens, formatTime(at))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "saving a budget limit in %s: %w", db.path, err)
	}
	return nil
}

// ClearBudgetLimit removes the owner's limit of one agent and period.
func (db *DB) ClearBudgetLimit(ctx context.Context, agent, period string) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM budget_limits WHERE agent = ? AND period = ?`, agent, period); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "removing a budget limit in %s: %w", db.path, err)
	}
	return nil
}

func validPeriod(p string) error {
	if p != store.PeriodDay && p != store.PeriodMonth {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "budget period %q: want %s or %s", p, store.PeriodDay, store.PeriodMonth)
	}
	return nil
}

// MarkBudgetNotice records a notice once: of two processes marking the
// same key, one is told to send it.
func (db *DB) MarkBudgetNotice(ctx context.Context, key string, at time.Time) (bool, error) {
	res, err := db.db.ExecContext(ctx, `INSERT INTO budget_notices (key, at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, formatTime(at))
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording a budget notice in %s: %w", db.path, err)
	}
	n, err := db.affected(res, "recording a budget notice")
	return n == 1, err
}

// UnmarkBudgetNotice forgets a notice that could not be sent.
func (db *DB) UnmarkBudgetNotice(ctx context.Context, key string) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM budget_notices WHERE key = ?`, key); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "forgetting a budget notice in %s: %w", db.path, err)
	}
	return nil
}

const offerColumns = `id, agent, period, start, stopped, state, factor, turn_taken, decided_by, created_at, decided_at`

// AddBudgetOffer stores an offer made to the owner.
func (db *DB) AddBudgetOffer(ctx context.Context, o store.BudgetOffer) error {
	if err := validPeriod(o.Period); err != nil {
		return err
	}
	created := o.CreatedAt
	if created.IsZero() {
		created = db.now()
	}
	_, err := db.db.ExecContext(ctx, `INSERT INTO budget_offers (id, agent, period, start, stopped, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		o.ID, o.Agent, o.Period, formatTime(o.Start), o.Stopped, store.OfferOpen, formatTime(created))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a budget offer in %s: %w", db.path, err)
	}
	return nil
}

// DropBudgetOffer forgets an offer while it is open.
func (db *DB) DropBudgetOffer(ctx context.Context, id string) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM budget_offers WHERE id = ? AND state = 'open'`, id); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "forgetting budget offer %s in %s: %w", id, db.path, err)
	}
	return nil
}

// BudgetOffer returns one offer, or ENOTFOUND.
func (db *DB) BudgetOffer(ctx context.Context, id string) (store.BudgetOffer, error) {
	o, err := scanOffer(db.db.QueryRowContext(ctx, `SELECT `+offerColumns+` FROM budget_offers WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return o, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no budget offer %q", id)
	}
	if err != nil {
		return o, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading budget offer %s from %s: %w", id, db.path, err)
	}
	return o, nil
}

// BudgetOffers returns the offers for periods starting at or after since,
// oldest first.
func (db *DB) BudgetOffers(ctx context.Context, since time.Time) ([]store.BudgetOffer, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT `+offerColumns+` FROM budget_offers WHERE start >= ? ORDER BY created_at, id`, formatTime(since))
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading budget offers from %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.BudgetOffer
	for rows.Next() {
		o, err := scanOffer(rows)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading budget offers from %s: %w", db.path, err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading budget offers from %s: %w", db.path, err)
	}
	return out, nil
}

func scanOffer(row interface{ Scan(...any) error }) (store.BudgetOffer, error) {
	var o store.BudgetOffer
	var start, created, decided string
	var taken int
	if err := row.Scan(&o.ID, &o.Agent, &o.Period, &start, &o.Stopped, &o.State, &o.Factor, &taken, &o.DecidedBy, &created, &decided); err != nil {
		return o, err
	}
	o.TurnTaken = taken != 0
	var err error
	if o.Start, err = parseTime(start); err != nil {
		return o, err
	}
	if o.CreatedAt, err = parseTime(created); err != nil {
		return o, err
	}
	if decided != "" {
		if o.DecidedAt, err = parseTime(decided); err != nil {
			return o, err
		}
	}
	return o, nil
}

// DecideBudgetOffer takes a decision once: the UPDATE only matches an
// open offer, so of two taps, two devices or two channels exactly one
// wins.
func (db *DB) DecideBudgetOffer(ctx context.Context, id, state string, factor float64, by string, at time.Time) (store.BudgetOffer, error) {
	switch {
	case state == store.OfferRaised && factor > 1:
	case state == store.OfferAllowed:
		factor = 0
	default:
		return store.BudgetOffer{}, jarvisbot.Errorf(jarvisbot.EINVALID, "budget decision %q (factor %g): want raised by more than 1, or allowed", state, factor)
	}
	res, err := db.db.ExecContext(ctx, `UPDATE budget_offers SET state = ?, factor = ?, decided_by = ?, decided_at = ? WHERE id = ? AND state = 'open'`,
		state, factor, by, formatTime(at), id)
	if err != nil {
		return store.BudgetOffer{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "deciding budget offer in %s: %w", db.path, err)
	}
	n, err := db.affected(res, "deciding budget offer "+id)
	if err != nil {
		return store.BudgetOffer{}, err
	}
	o, err := db.BudgetOffer(ctx, id)
	if err != nil {
		return o, err
	}
	if n == 0 {
		return o, jarvisbot.Errorf(jarvisbot.ECONFLICT, "this offer was already decided: %s", o.State)
	}
	return o, nil
}

// TakeBudgetTurn takes one allowed turn of agent, once.
func (db *DB) TakeBudgetTurn(ctx context.Context, agent string) (bool, error) {
	res, err := db.db.ExecContext(ctx, `UPDATE budget_offers SET turn_taken = 1
		WHERE id = (SELECT id FROM budget_offers WHERE stopped = ? AND state = 'allowed' AND turn_taken = 0 ORDER BY decided_at, id LIMIT 1)
		AND turn_taken = 0`, agent)
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "taking an allowed turn in %s: %w", db.path, err)
	}
	n, err := db.affected(res, "taking an allowed turn")
	return n == 1, err
}

// ModelCallSums sums the calls since a time by agent, provider and model.
func (db *DB) ModelCallSums(ctx context.Context, since time.Time) ([]store.ModelCall, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT agent, provider, model, count(*), CAST(sum(input_tokens) AS BIGINT), CAST(sum(output_tokens) AS BIGINT),
		CAST(sum(cache_read_tokens) AS BIGINT), CAST(sum(cache_write_tokens) AS BIGINT)
		FROM model_calls WHERE at >= ? GROUP BY agent, provider, model ORDER BY agent, provider, model`, formatTime(since))
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "summing model calls in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.ModelCall
	for rows.Next() {
		var c store.ModelCall
		var n int64
		if err := rows.Scan(&c.Agent, &c.Provider, &c.Model, &n, &c.InputTokens, &c.OutputTokens, &c.CacheReadTokens, &c.CacheWriteTokens); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "summing model calls in %s: %w", db.path, err)
		}
		c.Outcome = "ok"
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "summing model calls in %s: %w", db.path, err)
	}
	return out, nil
}
