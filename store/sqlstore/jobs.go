package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var (
	_ store.Jobs  = (*DB)(nil)
	_ store.Notes = (*DB)(nil)
)

const jobColumns = `id, app, title, text, agent, why, chat, state, result, error, approval, tools, attempts, created_at, started_at, finished_at`

// jobIDAlphabet leaves out letters and digits read alike (0/o, 1/l/i), as
// the id is read back and typed by people and other apps.
const jobIDAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// newJobID returns 10 random characters of jobIDAlphabet (~49 bits):
// short enough to read out, and AddJob tries again on the rare clash.
func newJobID() (string, error) {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random job id: %w", err)
	}
	for i := range b {
		b[i] = jobIDAlphabet[int(b[i])%len(jobIDAlphabet)]
	}
	return string(b[:]), nil
}

// AddJob stores a new job in state queued with a fresh ID.
func (db *DB) AddJob(ctx context.Context, j store.Job) (store.Job, error) {
	if err := store.ValidLabel("the title of a job", j.Title, store.JobTitleLimit()); err != nil {
		return j, err
	}
	if err := store.ValidText("the text of a job", j.Text, store.JobTextLimit()); err != nil {
		return j, err
	}
	j.State = store.JobQueued
	j.CreatedAt = db.now().UTC()
	for try := 0; ; try++ {
		id, err := newJobID()
		if err != nil {
			return j, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a job of %s: %w", j.App, err)
		}
		j.ID = id
		chat := j.Chat
		if chat == "" {
			chat = "job:" + id
		}
		tools, _ := json.Marshal(nonNil(j.Tools))
		res, err := db.db.ExecContext(ctx, `INSERT INTO jobs (`+jobColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			j.ID, j.App, j.Title, j.Text, j.Agent, j.Why, chat, string(j.State), j.Result, j.Error, j.Approval, string(tools), j.Attempts,
			formatTime(j.CreatedAt), optTime(j.StartedAt), optTime(j.FinishedAt))
		if err != nil {
			return j, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a job of %s in %s: %w", j.App, db.path, err)
		}
		n, err := db.affected(res, "storing a job of "+j.App)
		if err != nil {
			return j, err
		}
		if n == 1 {
			j.Chat = chat
			return j, nil
		}
		if try == 5 {
			return j, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a job of %s in %s: every new id was taken already", j.App, db.path)
		}
	}
}

// optTime is a time that may be unset: "" in the file.
func optTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return formatTime(t)
}

func scanJob(r scanner) (store.Job, error) {
	var j store.Job
	var state, tools, created, started, finished string
	if err := r.Scan(&j.ID, &j.App, &j.Title, &j.Text, &j.Agent, &j.Why, &j.Chat, &state, &j.Result, &j.Error, &j.Approval, &tools, &j.Attempts, &created, &started, &finished); err != nil {
		return j, err
	}
	j.State = store.JobState(state)
	if err := json.Unmarshal([]byte(tools), &j.Tools); err != nil {
		return j, fmt.Errorf("job %s: tools: %w", j.ID, err)
	}
	var err error
	if j.CreatedAt, err = parseTime(created); err != nil {
		return j, fmt.Errorf("job %s: created: %w", j.ID, err)
	}
	for _, t := range []struct {
		s  string
		to *time.Time
	}{{started, &j.StartedAt}, {finished, &j.FinishedAt}} {
		if t.s == "" {
			continue
		}
		if *t.to, err = parseTime(t.s); err != nil {
			return j, fmt.Errorf("job %s: %w", j.ID, err)
		}
	}
	return j, nil
}

// Job returns a job, or ENOTFOUND.
func (db *DB) Job(ctx context.Context, id string) (store.Job, error) {
	return db.job(ctx, db.db, id)
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (db *DB) job(ctx context.Context, q queryer, id string) (store.Job, error) {
	j, err := scanJob(q.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return j, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "there is no job %q: jobs_list shows the jobs there are", id)
	}
	if err != nil {
		return j, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading job %s from %s: %w", id, db.path, err)
	}
	return j, nil
}

// Jobs returns the jobs of an app ("" for every app), newest first; limit
// 0 or less means 50.
func (db *DB) Jobs(ctx context.Context, app string, limit int) ([]store.Job, error) {
	if limit <= 0 {
		limit = 50
	}
	q := `SELECT ` + jobColumns + ` FROM jobs`
	var args []any
	if app != "" {
		q += ` WHERE app = ?`
		args = append(args, app)
	}
	q += ` ORDER BY created_at DESC, rowid DESC LIMIT ?`
	return db.jobs(ctx, q, append(args, limit)...)
}

// UnfinishedJobs returns the queued, running and waiting jobs, oldest first.
func (db *DB) UnfinishedJobs(ctx context.Context) ([]store.Job, error) {
	return db.jobs(ctx, `SELECT `+jobColumns+` FROM jobs WHERE state IN ('queued', 'running', 'waiting_approval') ORDER BY created_at, rowid`)
}

func (db *DB) jobs(ctx context.Context, q string, args ...any) ([]store.Job, error) {
	return queryAll(ctx, db, "reading jobs", scanJob, q, args...)
}

// UpdateJob changes a job in one transaction.
func (db *DB) UpdateJob(ctx context.Context, id string, change func(*store.Job) error) (store.Job, error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return store.Job{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot update job %s in %s: %w", id, db.path, err)
	}
	defer tx.Rollback() // no-op after Commit
	if err := tx.serialize(ctx, "job:"+id); err != nil {
		return store.Job{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot update job %s in %s: %w", id, db.path, err)
	}
	j, err := db.job(ctx, tx, id)
	if err != nil {
		return j, err
	}
	was := j
	if err := change(&j); err != nil {
		return was, err
	}
	tools, err := json.Marshal(nonNil(j.Tools))
	if err != nil {
		return was, jarvisbot.Errorf(jarvisbot.EINTERNAL, "updating job %s: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE jobs SET title = ?, text = ?, agent = ?, why = ?, chat = ?, state = ?, result = ?, error = ?, approval = ?, tools = ?, attempts = ?, started_at = ?, finished_at = ? WHERE id = ?`,
		j.Title, j.Text, j.Agent, j.Why, j.Chat, string(j.State), j.Result, j.Error, j.Approval, string(tools), j.Attempts, optTime(j.StartedAt), optTime(j.FinishedAt), id); err != nil {
		return was, jarvisbot.Errorf(jarvisbot.EINTERNAL, "updating job %s in %s: %w", id, db.path, err)
	}
	if err := tx.Commit(); err != nil {
		return was, jarvisbot.Errorf(jarvisbot.EINTERNAL, "committing job %s in %s: %w", id, db.path, err)
	}
	j.ID, j.App, j.CreatedAt = was.ID, was.App, was.CreatedAt
	return j, nil
}

// AddNote stores an unread note for an agent.
func (db *DB) AddNote(ctx context.Context, n store.Note) (store.Note, error) {
	if strings.TrimSpace(n.Text) == "" {
		return n, jarvisbot.Errorf(jarvisbot.EINVALID, "the note for %s is empty: write what the agent should read", n.Agent)
	}
	if err := store.ValidNote(n.Agent, n.Text); err != nil {
		return n, err
	}
	n.CreatedAt = db.now().UTC()
	if err := db.db.QueryRowContext(ctx, `INSERT INTO agent_notes (agent, sender, text, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
		n.Agent, n.From, n.Text, formatTime(n.CreatedAt)).Scan(&n.ID); err != nil {
		return n, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a note for %s in %s: %w", n.Agent, db.path, err)
	}
	return n, nil
}

// TakeNotes returns an agent's unread notes, oldest first, marked read in
// the same transaction.
func (db *DB) TakeNotes(ctx context.Context, agent string) ([]store.Note, error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot read the notes for %s in %s: %w", agent, db.path, err)
	}
	defer tx.Rollback() // no-op after Commit
	if err := tx.serialize(ctx, "notes:"+agent); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot read the notes for %s in %s: %w", agent, db.path, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, agent, sender, text, created_at FROM agent_notes WHERE agent = ? AND read_at = '' ORDER BY id`, agent)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the notes for %s from %s: %w", agent, db.path, err)
	}
	var out []store.Note
	for rows.Next() {
		var n store.Note
		var at string
		if err := rows.Scan(&n.ID, &n.Agent, &n.From, &n.Text, &at); err != nil {
			rows.Close()
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the notes for %s from %s: %w", agent, db.path, err)
		}
		if n.CreatedAt, err = parseTime(at); err != nil {
			rows.Close()
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading note %d for %s from %s: %w", n.ID, agent, db.path, err)
		}
		out = append(out, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the notes for %s from %s: %w", agent, db.path, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE agent_notes SET read_at = ? WHERE agent = ? AND read_at = '' AND id <= ?`, formatTime(db.now()), agent, out[len(out)-1].ID); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "marking the notes for %s read in %s: %w", agent, db.path, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "marking the notes for %s read in %s: %w", agent, db.path, err)
	}
	return out, nil
}
