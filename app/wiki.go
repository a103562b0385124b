package app

import (
	"context"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/wiki"
)

// Wiki is the wiki the agents use (P5), in <data dir>/wiki, as the owner
// reaches it (jarvisbot wiki): the same notes, names and checks as the
// agents' wiki tool; only the owner deletes notes.
func Wiki(cfg config.Config) *wiki.Wiki {
	return wiki.New(filepath.Join(cfg.DataDir, "wiki"))
}

// SaveNote writes the note name with text, or with appendText adds text
// to its end (creating it when there is none).
func SaveNote(ctx context.Context, w *wiki.Wiki, name, text string, appendText bool) (wiki.Note, error) {
	if appendText {
		return w.Append(ctx, name, text)
	}
	return w.Write(ctx, name, text)
}
