package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// dialect is the SQL engine behind a DB. The store keeps one SQL text per
// query, written in the subset both engines accept: '?' placeholders
// (rebound to $n for PostgreSQL), reserved column names quoted ("user"),
// RETURNING for new ids, ON CONFLICT for upserts, times as RFC 3339 text
// and booleans as 0/1 integers. Where the engines differ in kind (locks,
// migrations, opening), the code branches on the dialect.
type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// String names the dialect's migration folder and the engine in messages.
func (d dialect) String() string {
	if d == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

// rebind turns '?' placeholders into PostgreSQL's $1, $2, … outside quoted
// text and identifiers; SQLite takes the text as written.
func (d dialect) rebind(q string) string {
	if d != postgresDialect || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// conn is the pool with the dialect's placeholders: every query of the
// store goes through it, so the SQL texts stay one per query.
type conn struct {
	*sql.DB
	d dialect
}

func (c conn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return c.DB.ExecContext(ctx, c.d.rebind(q), args...)
}

func (c conn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return c.DB.QueryContext(ctx, c.d.rebind(q), args...)
}

func (c conn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return c.DB.QueryRowContext(ctx, c.d.rebind(q), args...)
}

// BeginTx starts a transaction whose queries are rebound too.
func (c conn) BeginTx(ctx context.Context, opts *sql.TxOptions) (*txn, error) {
	tx, err := c.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &txn{Tx: tx, d: c.d}, nil
}

// txn is a transaction with the dialect's placeholders.
type txn struct {
	*sql.Tx
	d dialect
}

func (t *txn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, t.d.rebind(q), args...)
}

func (t *txn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.Tx.QueryContext(ctx, t.d.rebind(q), args...)
}

func (t *txn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return t.Tx.QueryRowContext(ctx, t.d.rebind(q), args...)
}

// serialize makes a read-then-write transaction run alone for key. SQLite
// needs nothing: _txlock=immediate takes the write lock at BEGIN. On
// PostgreSQL a transaction-scoped advisory lock on the key does it, also
// for a row that does not exist yet (which SELECT … FOR UPDATE cannot
// lock); it is let go at commit or rollback.
func (t *txn) serialize(ctx context.Context, key string) error {
	if t.d != postgresDialect {
		return nil
	}
	_, err := t.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(?))`, nsRow, key)
	return err
}
