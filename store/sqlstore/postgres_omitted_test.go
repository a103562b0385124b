//go:build nopostgres

package sqlstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// A build without PostgreSQL (the release build) refuses a postgres://
// store before it connects, saying which build has it, and never shows
// the URL's password. scripts/test.sh runs this with -tags nopostgres.
func TestPostgresLeftOutOfThisBuildST2(t *testing.T) {
	for _, url := range []string{
		"postgres://jarvis:hunter2@db.internal:5432/jarvis",
		"postgresql://jarvis@127.0.0.1:1/jarvis?password=hunter2",
	} {
		db, err := Open(context.Background(), url)
		if err == nil {
			db.Close()
			t.Fatalf("Open(%s) succeeded in a build without PostgreSQL", url)
		}
		var e *jarvisbot.Error
		if !errors.As(err, &e) || e.Code != jarvisbot.EINVALID {
			t.Errorf("Open(%s): %v, want an invalid-input error", url, err)
		}
		msg := err.Error()
		for _, want := range []string{"built without PostgreSQL", "scripts/release.sh --postgres", "xxxxx"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Open(%s): %q lacks %q", url, msg, want)
			}
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("Open(%s): %q shows the password", url, msg)
		}
	}
}
