package main

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

// postgresURL is the store's URL when the store is PostgreSQL, where
// replicas may share it (ST2); "" for SQLite, which one process serves.
func postgresURL(cfg config.Config) string {
	if t := storeTarget(cfg); sqlstore.IsPostgres(t) {
		return t
	}
	return ""
}

// openShared opens the task queue replicas share, when the store is
// PostgreSQL: turns, scheduled runs and report deliveries run once
// across them (store/sqlstore/replicas). With SQLite it returns nil: the
// process answers and schedules alone.
func (a *app) openShared(ctx context.Context, cfg config.Config, s **session, log *slog.Logger) (*replicas.Queue, error) {
	url := postgresURL(cfg)
	if url == "" {
		return nil, nil
	}
	tasks, err := replicas.Open(ctx, replicas.Options{
		URL: url,
		ID:  replicaID(),
		// The session is built after the queue and before it starts.
		Answer:  func(ctx context.Context, chat string) error { return (*s).desk.AnswerChat(ctx, chat) },
		Waiting: func(ctx context.Context) ([]store.Incoming, error) { return (*s).db.Waiting(ctx) },
		RunDue: func(ctx context.Context, skill string, due time.Time) error {
			return (*s).sched.RunDue(ctx, skill, due)
		},
		Deliver: func(ctx context.Context, run int64) error { return (*s).sched.DeliverRun(ctx, run) },
		Abandoned: func(ctx context.Context, skill string, due time.Time) error {
			return (*s).sched.Abandoned(ctx, skill, due)
		},
		// An owner's /cancel that reached another replica.
		StopTurn: func(chat string) {
			if (*s).desk.StopTurn(chat) {
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

// replicaID names this process among the replicas: host and pid.
func replicaID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// pauseSyncEvery is how often serve reads whether jarvisbot is paused:
// the owner may pause or resume on another replica, or with the CLI.
const pauseSyncEvery = 2 * time.Second

// syncPause takes up a pause or resume recorded by another replica or
// the CLI.
func (s *session) syncPause(ctx context.Context) {
	was, _ := s.pausedNow()
	if err := s.loadPause(ctx); err != nil {
		if ctx.Err() == nil {
			s.log.Warn("reading whether jarvisbot is paused", "err", err)
		}
		return
	}
	now, by := s.pausedNow()
	switch {
	case !was && now:
		s.log.Info("jarvisbot is paused: no agent starts a turn until it is resumed", "by", by)
	case was && !now:
		s.log.Info("jarvisbot is resumed: agents start turns again")
		s.desk.Resumed()
		s.jobs.Resume()
	}
}
