package store

import "context"

// Leases elects, among the processes that share one store, the one that
// does a piece of work only one may do at a time (ST2): long-polling
// Telegram (Telegram allows one poller per token), holding a Discord
// shard's gateway session. With PostgreSQL a lease is a session advisory
// lock, so it ends when its holder's connection does, a killed replica's
// included; with SQLite it is a file lock beside the database, which the
// kernel drops when its process dies.
type Leases interface {
	// Lead waits until this process holds the named role, or ctx ends
	// (then it returns ctx's error). The Lease must be released; until
	// then no other process is granted the role.
	Lead(ctx context.Context, role string) (Lease, error)
	// TryLead is Lead that does not wait: ok is false when another
	// process holds the role.
	TryLead(ctx context.Context, role string) (l Lease, ok bool, err error)
}

// Lease is one held role.
type Lease interface {
	// Lost is closed when the hold can no longer be vouched for (the
	// database connection that holds it broke): the holder stops the
	// work at once, since another process may be granted the role.
	Lost() <-chan struct{}
	// Release gives the role up; it is safe to call more than once.
	Release()
}

// Shared keeps small values every process on one store must agree on,
// such as the salt the Telegram webhook's secret token is derived from
// (ST2). They are not secrets on their own: a secret is derived from
// one together with a secret kept in the keyring.
type Shared interface {
	// SharedValue returns the value stored under name; when there is none
	// it stores make's result first. Of several processes asking at once,
	// one value wins and every caller gets it.
	SharedValue(ctx context.Context, name string, make func() (string, error)) (string, error)
}
