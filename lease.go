package jarvisbot

import "context"

// Leases elect, among the replicas that share one store, the one that
// does what only one may do at a time (ST2): long-poll Telegram (one
// poller per token), hold a Discord shard's gateway session, run the
// desk's and the scheduler's once-only work. The store provides them
// (store/sqlstore: a session advisory lock on PostgreSQL, which ends with
// its holder's connection, a killed replica's included; a file lock
// beside the database on SQLite, which the kernel drops with its
// process); the channel adapters, the desk and the scheduler use them.
// They are declared here, once, because both sides import this package
// and neither may import the other.
type Leases interface {
	// Lead waits until this replica holds role, or ctx ends (then it
	// returns ctx's error). The Lease must be released; until then no
	// other replica is granted the role.
	Lead(ctx context.Context, role string) (Lease, error)
	// TryLead is Lead without the wait: ok is false when another replica
	// holds role.
	TryLead(ctx context.Context, role string) (l Lease, ok bool, err error)
}

// Lease is one held role.
type Lease interface {
	// Lost is closed when the hold can no longer be vouched for (the
	// database connection that holds it broke): the holder stops the
	// work at once, since another replica may be granted the role.
	Lost() <-chan struct{}
	// Release gives the role up; calling it again does nothing.
	Release()
}
