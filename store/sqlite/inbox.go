package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Inbox = (*DB)(nil)

// Receive stores a received message.
func (db *DB) Receive(ctx context.Context, m store.Incoming) (int64, error) {
	var a store.IncomingAudio
	var data []byte // NULL for a text message
	if m.Audio != nil {
		a, data = *m.Audio, m.Audio.Data
		if data == nil && !a.Heard {
			data = []byte{}
		}
	}
	res, err := db.db.ExecContext(ctx, `INSERT INTO inbox (chat, user, name, text, received_at, audio, audio_mime, audio_ms, audio_voice, audio_file, audio_told, audio_heard)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, m.Chat, m.User, m.Name, m.Text, formatTime(db.now()),
		data, a.MIME, a.Duration.Milliseconds(), a.Voice, a.FileName, a.Told, a.Heard)
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a received message in %s: %w", db.path, err)
	}
	return db.insertedID(res, "storing a received message")
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
	rows, err := db.db.QueryContext(ctx, `SELECT id, chat, user, name, text, audio, audio_mime, audio_ms, audio_voice, audio_file, audio_told, audio_heard FROM inbox ORDER BY id`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Incoming
	for rows.Next() {
		var m store.Incoming
		var a store.IncomingAudio
		var data []byte
		var ms int64
		if err := rows.Scan(&m.ID, &m.Chat, &m.User, &m.Name, &m.Text, &data, &a.MIME, &ms, &a.Voice, &a.FileName, &a.Told, &a.Heard); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: %w", db.path, err)
		}
		if data != nil || a.Heard {
			a.Data, a.Duration = data, time.Duration(ms)*time.Millisecond
			m.Audio = &a
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
