package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/store/sqlstore/replicas"
)

// PostgresURL is the store's URL when the store is PostgreSQL, where
// replicas may share it (ST2); "" for SQLite, which one process serves.
func PostgresURL(cfg config.Config) string {
	if t := StoreTarget(cfg); sqlstore.IsPostgres(t) {
		return t
	}
	return ""
}

// openShared opens the task queue replicas share, when the store is
// PostgreSQL: turns, scheduled runs and report deliveries run once
// across them (store/sqlstore/replicas). With SQLite it returns nil: the
// process answers and schedules alone. The tasks call into s, which is
// complete before the queue starts.
func (a *Env) openShared(ctx context.Context, cfg config.Config, s *Session, log *slog.Logger) (*replicas.Queue, error) {
	url := PostgresURL(cfg)
	if url == "" {
		return nil, nil
	}
	tasks, err := replicas.Open(ctx, replicas.Options{
		URL:     url,
		ID:      ReplicaID(),
		Answer:  func(ctx context.Context, chat string) error { return s.Desk.AnswerChat(ctx, chat) },
		Waiting: func(ctx context.Context) ([]store.Incoming, error) { return s.DB.Waiting(ctx) },
		RunDue: func(ctx context.Context, skill string, due time.Time) error {
			return s.scheduler.RunDue(ctx, skill, due)
		},
		Deliver: func(ctx context.Context, run int64) error { return s.scheduler.DeliverRun(ctx, run) },
		Abandoned: func(ctx context.Context, skill string, due time.Time) error {
			return s.scheduler.Abandoned(ctx, skill, due)
		},
		// An owner's /cancel that reached another replica.
		StopTurn: func(chat string) {
			if s.Desk.StopTurn(chat) {
				log.Info("stopped a turn: the owner's /cancel reached another replica", "chat", chat)
			}
		},
		Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("%w; check that PostgreSQL runs and that the URL (store: or JARVIS_DATABASE_URL) is right", err)
	}
	return tasks, nil
}

// ReplicaID names this process among the replicas: host and pid.
func ReplicaID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}
