package app

import (
	"context"
	"os"

	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// BuildCatalog assembles the catalog a command works on (assembly.Build),
// from the store when one exists: nothing is created by reading (a
// PostgreSQL database exists once it is configured).
func BuildCatalog(cfg config.Config, snapshotPath string) (*catalog.Catalog, error) {
	ctx := context.Background()
	src := assembly.Sources{Config: cfg, Snapshot: snapshotPath}
	target := StoreTarget(cfg)
	if _, err := os.Stat(target); err == nil || sqlstore.IsPostgres(target) {
		db, err := sqlstore.Open(ctx, target)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		src.Stored = db
	}
	return assembly.Build(ctx, src)
}
