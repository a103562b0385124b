package app

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/jarvisbot/jarvisbot/plugins/builtins/wiki"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// Recall (A6): everything said is searchable through the store's index.
// The agents reach it through builtin:memory; the owner through `jarvisbot
// memory search`, the dashboard's Activity tab and the MCP surface, all by
// the use cases below. Nothing leaves the store.

// SearchSaid finds what was said with the words of query, best first, in
// every chat of the owner and the wiki (or as f narrows it).
func (in *Installation) SearchSaid(ctx context.Context, query string, f store.RecallFilter) ([]store.RecallHit, error) {
	return in.DB.Search(ctx, query, f)
}

// RecentSaid returns the latest messages, newest first.
func (in *Installation) RecentSaid(ctx context.Context, f store.RecallFilter) ([]store.RecallHit, error) {
	return in.DB.Recent(ctx, f)
}

// Wiki is the installation's wiki, its notes indexed for search as they
// are written.
func (in *Installation) Wiki() *wiki.Wiki {
	return wiki.New(filepath.Join(in.Config.DataDir, "wiki")).IndexWith(in.DB)
}

// historyBatch is how many earlier messages one step of the background
// indexing takes: small enough that a turn waiting to store its message
// is not held up for long.
const historyBatch = 500

// IndexHistory indexes, once, the messages stored before the search index
// existed, in batches that each commit with their progress, so a restart
// goes on where it stopped; then it gives the index every wiki note, so
// notes edited by hand are found too. It logs its progress and returns when
// done or when ctx ends. serve runs it in the background once the owner
// can reach jarvisbot (Session.AfterReady).
func IndexHistory(ctx context.Context, db *sqlstore.DB, w *wiki.Wiki, log *slog.Logger, pause time.Duration) error {
	started := false
	for {
		p, err := db.IndexHistory(ctx, historyBatch)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if p.Done {
			if started {
				log.Info("earlier messages are searchable now", "indexed", p.Indexed)
			}
			break
		}
		if !started {
			log.Info("indexing earlier messages for search, in the background", "total", p.Total)
			started = true
		}
		log.Info("indexing earlier messages for search", "indexed", p.Indexed, "total", p.Total)
		// Let turns store their messages between batches.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
	if w == nil {
		return nil
	}
	gone, err := db.IndexedNotes(ctx)
	if err != nil {
		return err
	}
	if _, err := w.Reindex(ctx, gone); err != nil {
		return err
	}
	return nil
}

// indexHistory runs IndexHistory for the service, logging a failure: search
// then finds less until the next start, and nothing else is held up.
func (s *Service) indexHistory(ctx context.Context) {
	w := wiki.New(filepath.Join(s.Config.DataDir, "wiki")).IndexWith(s.DB)
	if err := IndexHistory(ctx, s.DB, w, s.log, 50*time.Millisecond); err != nil && ctx.Err() == nil {
		s.log.Warn("indexing earlier messages for search stopped; it goes on at the next start", "err", err)
	}
}
