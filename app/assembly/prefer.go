package assembly

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/store"
)

// PreferenceSource is the part of the store a tie-break reads: the owner's
// marks and the activity board's last calls.
type PreferenceSource interface {
	store.Preferences
	store.ToolUse
}

// Preferences reads what breaks ties between services of one kind (C5):
// the owner's marks (`plugins prefer`, `mcp prefer`) and when each
// service's tools were last called.
// v, when given, credits a plugin with its servers' calls.
func Preferences(ctx context.Context, db PreferenceSource, v *catalog.View) (*catalog.Preferences, error) {
	marks, err := db.Preferred(ctx)
	if err != nil {
		return nil, err
	}
	last, err := db.LastUsed(ctx)
	if err != nil {
		return nil, err
	}
	p := &catalog.Preferences{Marked: make(map[string]time.Time, len(marks)), Used: catalog.UsageFromTools(last, v)}
	for _, m := range marks {
		p.Marked[m.Kind+":"+m.Name] = m.At
	}
	return p, nil
}
