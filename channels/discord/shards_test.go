package discord

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakediscord"
	"github.com/jarvisbot/jarvisbot/internal/filelock"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// leaseTable is the store's leases as replicas on one store see them (a
// test double of jarvisbot.Leases, through jarvisbot.Leases): one holder per
// role, and a way to lose a lease as a broken database connection would.
type leaseTable struct {
	mu      sync.Mutex
	held    map[string]*tableLease
	changed chan struct{}
}

type tableLease struct {
	t     *leaseTable
	role  string
	owner string
	lost  chan struct{}
	once  sync.Once
}

func newLeaseTable() *leaseTable {
	return &leaseTable{held: map[string]*tableLease{}, changed: make(chan struct{})}
}

// replica is the leases as the replica named owner uses them.
func (t *leaseTable) replica(owner string) jarvisbot.Leases { return replicaLeases{t, owner} }

type replicaLeases struct {
	t     *leaseTable
	owner string
}

func (r replicaLeases) TryLead(ctx context.Context, role string) (jarvisbot.Lease, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if _, ok := r.t.held[role]; ok {
		return nil, false, nil
	}
	l := &tableLease{t: r.t, role: role, owner: r.owner, lost: make(chan struct{})}
	r.t.held[role] = l
	return l, true, nil
}

func (r replicaLeases) Lead(ctx context.Context, role string) (jarvisbot.Lease, error) {
	for {
		r.t.mu.Lock()
		changed := r.t.changed
		r.t.mu.Unlock()
		l, ok, err := r.TryLead(ctx, role)
		if err != nil || ok {
			return l, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (l *tableLease) Lost() <-chan struct{} { return l.lost }

func (l *tableLease) Release() {
	l.once.Do(func() {
		l.t.mu.Lock()
		defer l.t.mu.Unlock()
		if l.t.held[l.role] == l {
			delete(l.t.held, l.role)
			close(l.t.changed)
			l.t.changed = make(chan struct{})
		}
	})
}

// lose ends the hold of role as a broken connection does: Lost closes
// and, as if another process had been granted it at once, blocker holds
// the role until the returned release.
func (t *leaseTable) lose(role, blocker string) (release func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.held[role]
	if l == nil {
		panic("lose: " + role + " is not held")
	}
	close(l.lost)
	b := &tableLease{t: t, role: role, owner: blocker, lost: make(chan struct{})}
	t.held[role] = b
	return b.Release
}

// owners returns who holds each shard's lease.
func (t *leaseTable) owners(shards int) map[int]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[int]string{}
	for id := range shards {
		if l := t.held[shardRole(id)]; l != nil {
			out[id] = l.owner
		}
	}
	return out
}

// shardReplica is one replica's bot, running until stop.
type shardReplica struct {
	name string
	bot  *Bot
	h    *recorder
	stop func()
}

// quick are the spread timings for tests: fast, and a grace long enough
// over the retry that a replica below its share wins a free shard.
var quick = Options{ShardGrace: 400 * time.Millisecond, ShardRetry: 20 * time.Millisecond, IdentifyInterval: 10 * time.Millisecond}

func startReplica(t *testing.T, srv *fakediscord.Server, table *leaseTable, name string, shards int, opt Options) *shardReplica {
	t.Helper()
	return startReplicaOn(t, srv, table.replica(name), name, shards, opt)
}

// startReplicaOn is startReplica sharing the shards through leases; the
// replica stops when the test ends.
func startReplicaOn(t *testing.T, srv *fakediscord.Server, leases jarvisbot.Leases, name string, shards int, opt Options) *shardReplica {
	t.Helper()
	opt.Token, opt.HTTPClient, opt.Shards, opt.Leases = srv.Token(), srv.HTTPClient(), shards, leases
	opt.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo})).With("replica", name)
	b, err := New(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := &shardReplica{name: name, bot: b, h: &recorder{}}
	stop := runBot(t, b, r.h, "replica "+name+": Run")
	r.stop = sync.OnceFunc(func() { stop(10 * time.Second) })
	t.Cleanup(r.stop)
	return r
}

// placed waits until every shard has one ready session and one owner,
// and each owner holds between floor and ceil of shards/replicas, and
// returns the owners.
func placed(t *testing.T, srv *fakediscord.Server, table *leaseTable, shards int, replicas []string) map[int]string {
	t.Helper()
	var owners map[int]string
	lo, hi := shards/len(replicas), (shards+len(replicas)-1)/len(replicas)
	testwait.For(t, 20*time.Second, fmt.Sprintf("%d shards spread over %v", shards, replicas), func() (bool, any) {
		owners = table.owners(shards)
		sessions := srv.ShardSessions()
		count := map[string]int{}
		for _, o := range owners {
			count[o]++
		}
		for id := range shards {
			if sessions[id] != 1 || !slices.Contains(replicas, owners[id]) {
				return false, fmt.Sprintf("sessions %v, owners %v", sessions, owners)
			}
		}
		for _, r := range replicas {
			if count[r] < lo || count[r] > hi {
				return false, fmt.Sprintf("owners %v: %s holds %d, want %d to %d", owners, r, count[r], lo, hi)
			}
		}
		return true, nil
	})
	return owners
}

// heardOnce sends a message to a guild of every shard and checks that
// exactly the owner of its shard hears it.
func heardOnce(t *testing.T, srv *fakediscord.Server, shards int, owners map[int]string, replicas []*shardReplica, text string) {
	t.Helper()
	for id := range shards {
		ch := srv.GuildChannel(srv.Guild(id, shards))
		srv.SendText(ch, owner, "<@"+srv.BotID()+"> "+text)
		testwait.For(t, 5*time.Second, fmt.Sprintf("shard %d's message heard once, by %s", id, owners[id]), func() (bool, any) {
			heard := map[string]int{}
			for _, r := range replicas {
				for _, m := range r.h.messages() {
					if m.Chat == Platform+":"+ch {
						heard[r.name]++
					}
				}
			}
			return maps.Equal(heard, map[string]int{owners[id]: 1}), heard
		})
	}
}

// TestShardsSpreadOverReplicasST2: a replica alone takes every shard; two
// replicas that join get their share, given up by the first after its
// grace; each guild's message is heard once, by its shard's owner; a
// replica that stops leaves its shards to the others, and no shard ever
// had two sessions.
func TestShardsSpreadOverReplicasST2(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	srv.SetMaxConcurrency(4)
	table := newLeaseTable()
	const shards = 4
	a := startReplica(t, srv, table, "a", shards, quick)
	placed(t, srv, table, shards, []string{"a"})
	b := startReplica(t, srv, table, "b", shards, quick)
	c := startReplica(t, srv, table, "c", shards, quick)
	all := []*shardReplica{a, b, c}
	owners := placed(t, srv, table, shards, []string{"a", "b", "c"})
	heardOnce(t, srv, shards, owners, all, "hello")

	b.stop()
	owners = placed(t, srv, table, shards, []string{"a", "c"})
	heardOnce(t, srv, shards, owners, all, "after b stopped")
	if d := srv.Duplicates(); len(d) != 0 {
		t.Errorf("shards identified twice at once: %+v", d)
	}
}

// TestLostLeaseClosesTheShardST2: when a shard's lease is lost (the
// store connection broke) the replica closes that shard's session at
// once, keeps its other shard, and opens the shard again once it holds
// the lease again.
func TestLostLeaseClosesTheShardST2(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	srv.SetMaxConcurrency(2)
	table := newLeaseTable()
	startReplica(t, srv, table, "a", 2, quick)
	placed(t, srv, table, 2, []string{"a"})
	before := len(srv.ShardIdentifies())
	release := table.lose(shardRole(1), "someone else")
	testwait.For(t, 5*time.Second, "shard 1's session closed", func() (bool, any) {
		s := srv.ShardSessions()
		return s[1] == 0 && s[0] == 1, s
	})
	release()
	placed(t, srv, table, 2, []string{"a"})
	ids := srv.ShardIdentifies()[before:]
	if len(ids) != 1 || ids[0].Shard != 1 {
		t.Errorf("identifies after the loss: %+v, want shard 1 once", ids)
	}
}

// TestIdentifyPacedAcrossReplicasST2: with one identify bucket, replicas
// starting together identify their shards IdentifyInterval apart.
func TestIdentifyPacedAcrossReplicasST2(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	table := newLeaseTable()
	const shards, interval = 3, 300 * time.Millisecond
	opt := quick
	opt.IdentifyInterval = interval
	startReplica(t, srv, table, "a", shards, opt)
	startReplica(t, srv, table, "b", shards, opt)
	placed(t, srv, table, shards, []string{"a", "b"})
	ids := srv.ShardIdentifies()
	for i := 1; i < len(ids); i++ {
		if gap := ids[i].At.Sub(ids[i-1].At); gap < interval {
			t.Errorf("identify %d (shard %d) came %v after the one before; want at least %v", i, ids[i].Shard, gap, interval)
		}
	}
}

// TestLocalShardsAllRunHere: without leases one process opens every
// shard.
func TestLocalShardsAllRunHere(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	srv.SetMaxConcurrency(3)
	b, err := New(t.Context(), Options{Token: srv.Token(), HTTPClient: srv.HTTPClient(), Shards: 3, IdentifyInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	stop := runBot(t, b, &recorder{}, "Run")
	testwait.For(t, 5*time.Second, "three shards open", func() (bool, any) {
		s := srv.ShardSessions()
		return s[0] == 1 && s[1] == 1 && s[2] == 1, s
	})
	stop(10 * time.Second)
}

// sqliteLeases are one SQLite store's leases as the channel sees them
// (serve wires the same adapter).
type sqliteLeases struct{ db *sqlstore.DB }

func (s sqliteLeases) Lead(ctx context.Context, role string) (jarvisbot.Lease, error) {
	l, err := s.db.Lead(ctx, role)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (s sqliteLeases) TryLead(ctx context.Context, role string) (jarvisbot.Lease, bool, error) {
	l, ok, err := s.db.TryLead(ctx, role)
	if err != nil || !ok {
		return nil, ok, err
	}
	return l, true, nil
}

// TestShardsOnOneSQLiteStoreST2: two replicas, each with its own handle
// on one SQLite file, share two shards through the store's file locks,
// one each; when one stops, the other holds both.
func TestShardsOnOneSQLiteStoreST2(t *testing.T) {
	t.Parallel()
	if !filelock.Supported {
		t.Skip("no file locks between processes here")
	}
	srv := fakediscord.New(t)
	srv.SetMaxConcurrency(2)
	path := filepath.Join(t.TempDir(), "jarvis.db")
	var replicas []*shardReplica
	for _, name := range []string{"a", "b"} {
		db, err := sqlstore.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		replicas = append(replicas, startReplicaOn(t, srv, sqliteLeases{db}, name, 2, quick))
	}
	chans := []string{srv.GuildChannel(srv.Guild(0, 2)), srv.GuildChannel(srv.Guild(1, 2))}
	testwait.For(t, 20*time.Second, "one shard each", func() (bool, any) {
		s, a, b := srv.ShardSessions(), replicas[0].bot.HeldShards(), replicas[1].bot.HeldShards()
		return s[0] == 1 && s[1] == 1 && len(a) == 1 && len(b) == 1, fmt.Sprintf("sessions %v, a holds %v, b %v", s, a, b)
	})
	replicas[0].stop()
	testwait.For(t, 10*time.Second, "the other replica to hold both", func() (bool, any) {
		s, b := srv.ShardSessions(), replicas[1].bot.HeldShards()
		return s[0] == 1 && s[1] == 1 && len(b) == 2, fmt.Sprintf("sessions %v, b holds %v", s, b)
	})
	if d := srv.Duplicates(); len(d) != 0 {
		t.Errorf("shards identified twice at once: %+v", d)
	}
	before := len(replicas[1].h.messages())
	for _, ch := range chans {
		srv.SendText(ch, owner, "<@"+srv.BotID()+"> after the stop")
	}
	testwait.For(t, 5*time.Second, "both heard by the one left", func() (bool, any) {
		ms := replicas[1].h.messages()
		return len(ms) == before+2, ms
	})
}

// reentrantLeases grant the identify roles to every caller, as
// PostgreSQL's advisory locks do to the connection that holds them.
type reentrantLeases struct{ replicaLeases }

type freeLease struct{}

func (freeLease) Lost() <-chan struct{} { return nil }
func (freeLease) Release()              {}

func (r reentrantLeases) Lead(ctx context.Context, role string) (jarvisbot.Lease, error) {
	if strings.HasPrefix(role, "discord-identify:") {
		return freeLease{}, nil
	}
	return r.replicaLeases.Lead(ctx, role)
}

// TestIdentifyPacedWithinAReplicaST2: two shards of one replica in one
// bucket identify IdentifyInterval apart even when the store would grant
// the bucket's lease to both at once.
func TestIdentifyPacedWithinAReplicaST2(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	const interval = 300 * time.Millisecond
	opt := quick
	opt.IdentifyInterval = interval
	opt.Token, opt.HTTPClient, opt.Shards = srv.Token(), srv.HTTPClient(), 2
	opt.Leases = reentrantLeases{replicaLeases{newLeaseTable(), "a"}}
	b, err := New(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer runBot(t, b, &recorder{}, "Run")(10 * time.Second)
	testwait.For(t, 5*time.Second, "both shards open", func() (bool, any) {
		s := srv.ShardSessions()
		return s[0] == 1 && s[1] == 1, s
	})
	ids := srv.ShardIdentifies()
	if len(ids) != 2 || ids[1].At.Sub(ids[0].At) < interval {
		t.Errorf("identifies %+v: want two, %v apart", ids, interval)
	}
}
