package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Inbox = (*DB)(nil)

// Receive stores a received message; one whose delivery was taken
// before is store.ErrDelivered. The delivery is recorded in the same
// transaction as the inbox row: taken and kept, or neither, so a crash
// between the two neither loses the message nor lets it in twice.
func (db *DB) Receive(ctx context.Context, m store.Incoming) (int64, error) {
	var a store.IncomingAudio
	var data []byte // NULL for a text message
	if m.Audio != nil {
		a, data = *m.Audio, m.Audio.Data
		if data == nil && !a.Heard {
			data = []byte{}
		}
	}
	var f store.IncomingFile
	var fileData []byte // NULL for a message without a file
	if m.File != nil {
		f, fileData = *m.File, m.File.Data
		if fileData == nil {
			fileData = []byte{}
		}
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "storing a received message in %s: %w", db.path, err)
	}
	defer tx.Rollback() // no-op after Commit
	now := formatTime(db.now())
	if m.Delivery != "" {
		taken, err := takeDelivery(ctx, tx, platformOf(m.Chat), m.Delivery, now)
		if err != nil {
			return 0, db.deliveryError(err)
		}
		if !taken {
			return 0, store.ErrDelivered
		}
	}
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO inbox (chat, "user", name, text, received_at, audio, audio_mime, audio_ms, audio_voice, audio_file, audio_told, audio_heard, file, file_mime, file_name, file_photo)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, m.Chat, m.User, m.Name, m.Text, now,
		data, a.MIME, a.Duration.Milliseconds(), boolInt(a.Voice), a.FileName, boolInt(a.Told), boolInt(a.Heard),
		fileData, f.MIME, f.FileName, boolInt(f.Photo)).Scan(&id); err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a received message in %s: %w", db.path, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a received message in %s: %w", db.path, err)
	}
	return id, nil
}

var _ store.Deliveries = (*DB)(nil)

// TakeDelivery implements store.Deliveries.
func (db *DB) TakeDelivery(ctx context.Context, platform, id string) (bool, error) {
	taken, err := takeDelivery(ctx, db.db, platform, id, formatTime(db.now()))
	if err != nil {
		return false, db.deliveryError(err)
	}
	return taken, nil
}

// ForgetDeliveries implements store.Deliveries.
func (db *DB) ForgetDeliveries(ctx context.Context, keep time.Duration) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM deliveries WHERE taken_at < ?`, formatTime(db.now().Add(-keep))); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "forgetting old deliveries in %s: %w", db.path, err)
	}
	return nil
}

func (db *DB) deliveryError(err error) error {
	return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording a received delivery in %s: %w", db.path, err)
}

// execer is a connection or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// takeDelivery inserts the delivery unless it is there: of several
// replicas taking one at once, the primary key lets one insert and the
// others see no row affected.
func takeDelivery(ctx context.Context, x execer, platform, id, now string) (bool, error) {
	res, err := x.ExecContext(ctx, `INSERT INTO deliveries (platform, id, taken_at) VALUES (?, ?, ?) ON CONFLICT (platform, id) DO NOTHING`, platform, id, now)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// platformOf is the platform of a chat id: "telegram" of "telegram:42".
func platformOf(chat string) string {
	p, _, _ := strings.Cut(chat, ":")
	return p
}

// Answered removes a message whose turn is done.
func (db *DB) Answered(ctx context.Context, id int64) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM inbox WHERE id = ?`, id); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "clearing a received message in %s: %w", db.path, err)
	}
	return nil
}

// Waiting returns the messages not yet answered, oldest first.
func (db *DB) Waiting(ctx context.Context) ([]store.Incoming, error) {
	return db.waiting(ctx, `ORDER BY id`)
}

// WaitingIn returns one chat's messages not yet answered, oldest first.
func (db *DB) WaitingIn(ctx context.Context, chat string) ([]store.Incoming, error) {
	return db.waiting(ctx, `WHERE chat = ? ORDER BY id`, chat)
}

// Begin marks a message whose turn starts, for whoever answers it next
// should this turn not finish (store.Incoming.Begun).
func (db *DB) Begin(ctx context.Context, id int64) error {
	res, err := db.db.ExecContext(ctx, `UPDATE inbox SET begun = 1 WHERE id = ?`, id)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "marking a received message as begun in %s: %w", db.path, err)
	}
	return db.oneInboxRow(res, id, "marking a received message as begun")
}

func (db *DB) waiting(ctx context.Context, where string, args ...any) ([]store.Incoming, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, chat, "user", name, text, received_at, begun, audio, audio_mime, audio_ms, audio_voice, audio_file, audio_told, audio_heard, file, file_mime, file_name, file_photo FROM inbox `+where, args...)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Incoming
	for rows.Next() {
		var m store.Incoming
		var a store.IncomingAudio
		var f store.IncomingFile
		var data, fileData []byte
		var ms int64
		var received string
		if err := rows.Scan(&m.ID, &m.Chat, &m.User, &m.Name, &m.Text, &received, &m.Begun, &data, &a.MIME, &ms, &a.Voice, &a.FileName, &a.Told, &a.Heard, &fileData, &f.MIME, &f.FileName, &f.Photo); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: %w", db.path, err)
		}
		if m.Received, err = parseTime(received); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: message %d: %w", db.path, m.ID, err)
		}
		if data != nil || a.Heard {
			a.Data, a.Duration = data, time.Duration(ms)*time.Millisecond
			m.Audio = &a
		}
		if fileData != nil {
			f.Data = fileData
			m.File = &f
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: %w", db.path, err)
	}
	return out, nil
}

// Transcribed sets what was heard and drops the kept audio.
func (db *DB) Transcribed(ctx context.Context, id int64, text string) error {
	res, err := db.db.ExecContext(ctx, `UPDATE inbox SET text = ?, audio = NULL, audio_heard = 1 WHERE id = ? AND (audio IS NOT NULL OR audio_heard = 1)`, text, id)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "keeping a transcription in %s: %w", db.path, err)
	}
	return db.oneInboxRow(res, id, "keeping a transcription")
}

// ToldNoTranscription marks the note as one the owner was told about.
func (db *DB) ToldNoTranscription(ctx context.Context, id int64) error {
	res, err := db.db.ExecContext(ctx, `UPDATE inbox SET audio_told = 1 WHERE id = ?`, id)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "marking a voice note in %s: %w", db.path, err)
	}
	return db.oneInboxRow(res, id, "marking a voice note")
}

// oneInboxRow is ENOTFOUND when the update touched no row.
func (db *DB) oneInboxRow(res sql.Result, id int64, doing string) error {
	n, err := db.affected(res, doing)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no received message %d is waiting", id)
	}
	return nil
}
