//go:build nopostgres

package replicas

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// Queue is the replicas' task queue, which a build without PostgreSQL
// cannot open: Open refuses, so no Queue of this build exists and its
// methods are never called.
type Queue struct{}

// Open refuses: the queue lives in PostgreSQL, which this build leaves
// out. The store refuses a postgres:// URL first, saying which build has
// it; this only guards a caller that skipped it.
func Open(context.Context, Options) (*Queue, error) {
	return nil, errOmitted()
}

func errOmitted() error {
	return jarvisbot.Errorf(jarvisbot.EINVALID, "the replicas' task queue needs PostgreSQL, which this jarvisbot is built without")
}

func (q *Queue) Start(context.Context) error                     { return errOmitted() }
func (q *Queue) Stop(context.Context)                            {}
func (q *Queue) Add(context.Context, string, int64) error        { return errOmitted() }
func (q *Queue) AddRun(context.Context, string, time.Time) error { return errOmitted() }
func (q *Queue) AddDelivery(context.Context, int64) error        { return errOmitted() }
func (q *Queue) Hold(context.Context, string) (context.Context, func(), error) {
	return nil, nil, errOmitted()
}
func (q *Queue) Cancel(context.Context, string) (bool, error) { return false, errOmitted() }
