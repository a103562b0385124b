package discord

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/retry"
)

// Shards across replicas (ST2).
//
// Discord sends a guild's events to one gateway session, the one of shard
// (guild_id >> 22) % shards, and the DMs to shard 0. Each shard's session
// must be open exactly once: two would answer every message twice, none
// would leave its guilds unheard. So every replica runs, for every shard,
// a loop that tries for the lease "discord-shard:N" and holds the
// shard's session open only while it holds the lease; a lost lease closes
// the session at once, and when a replica dies its leases end with it
// (the kernel drops its file locks, PostgreSQL its advisory locks) and the
// other replicas take its shards within a retry or a grace.
//
// The spread rule. Each replica holds one of the presence leases
// "discord-replica:K" (K < shards) and counts the replicas by the
// presence leases it cannot take (a replica beyond the S-th finds no
// free one and counts S+1). With S shards and R replicas its share is
// ceil(S/R), and it wants at least floor(S/R); a replica below floor(S/R)
// says so by holding a lease "discord-wanting:K".
//   - Below its share it tries for a free shard every ShardRetry (1 s).
//   - At its share it waits ShardGrace (5 s) first, and at floor(S/R)
//     while another replica wants, too: the replica with fewer gets the
//     shard. Only after waiting at its share does it go beyond it.
//   - Holding more than its share for a whole ShardGrace, it gives up
//     the shards over it; holding more than floor(S/R) for a grace while
//     another replica wants, it gives up one. A replica with fewer then
//     takes them: this is how a replica that starts after another took
//     everything gets its share.
//
// So every replica ends up with floor(S/R) or ceil(S/R) shards, and every
// shard is taken as long as one replica runs. A replica that dies frees
// its shards at once, and the others, now below their share, take them
// within a ShardRetry (or a ShardGrace if they count it late).
//
// Identify pacing. Discord allows one IDENTIFY per 5 s in each bucket
// (shard % max_concurrency, from GET /gateway/bot). A replica holds the
// lease "discord-identify:B" while it identifies and for
// IdentifyInterval after, so replicas never identify in one bucket
// within the interval. Resuming a session is not limited; an IDENTIFY the
// library sends by itself when Discord refuses a resume is not paced.
const (
	defaultShardGrace       = 5 * time.Second
	defaultShardRetry       = time.Second
	defaultIdentifyInterval = 5 * time.Second
)

func shardRole(id int) string    { return fmt.Sprintf("discord-shard:%d", id) }
func presenceRole(k int) string  { return fmt.Sprintf("discord-replica:%d", k) }
func wantingRole(k int) string   { return fmt.Sprintf("discord-wanting:%d", k) }
func identifyRole(b int) string  { return fmt.Sprintf("discord-identify:%d", b) }
func shardName(id, n int) string { return fmt.Sprintf("%d of %d", id, n) }

// placement is what the shard loops of one replica share: which shards it
// holds and how many replicas it sees.
type placement struct {
	shards int

	mu       sync.Mutex
	held     map[int]context.CancelCauseFunc // shard → ends its session
	replicas int
	wanting  bool      // another replica holds fewer than floor(shards/replicas)
	over     time.Time // since when more than is fair is held; zero when not
}

// share is how many shards this replica should hold at most, and want
// how many at least; p.mu is held.
func (p *placement) share() int {
	r := max(p.replicas, 1)
	return (p.shards + r - 1) / r
}

func (p *placement) want() int { return p.shards / max(p.replicas, 1) }

// wants reports whether the replica holds fewer than floor(shards/replicas).
func (p *placement) wants() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held) < p.want()
}

// patience tells whether the replica waits a grace before it takes a free
// shard: full, it holds its share; deferring, it holds what it wants
// while another replica wants more.
func (p *placement) patience() (full, deferring bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.held)
	return n >= p.share(), p.wanting && n >= p.want()
}

// take records shard id as held, unless the replica should have waited:
// beyond its share it takes a shard only after waiting the grace as full
// (full), and while another replica wants it only after waiting at all
// (waited). Two of its loops may find free shards at once; this keeps
// the second from going past the share.
func (p *placement) take(id int, full, waited bool, end context.CancelCauseFunc) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.held)
	if (n >= p.share() && !full) || (p.wanting && n >= p.want() && !waited) {
		return false
	}
	p.held[id] = end
	return true
}

func (p *placement) drop(id int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.held, id)
}

// errShed ends a shard's session that the replica gives up to even out
// the spread.
var errShed = errors.New("this replica holds more than its share of the shards")

// count records how many replicas there are and whether another wants
// shards. When the replica has held more than is fair for grace, it gives
// up its highest shards and returns them: those over its share, or one
// while another replica wants.
func (p *placement) count(replicas int, wanting bool, now time.Time, grace time.Duration) (shed []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.replicas, p.wanting = replicas, wanting
	n := len(p.held)
	excess := n - p.share()
	if excess <= 0 && wanting && n > p.want() {
		excess = 1
	}
	if excess <= 0 {
		p.over = time.Time{}
		return nil
	}
	if p.over.IsZero() {
		p.over = now
	}
	if now.Sub(p.over) < grace {
		return nil
	}
	p.over = time.Time{}
	ids := slices.Sorted(maps.Keys(p.held))
	for _, id := range ids[len(ids)-excess:] {
		p.held[id](errShed)
		delete(p.held, id) // no longer counted while its session closes (a second)
		shed = append(shed, id)
	}
	return shed
}

// holdShards runs the replica's loops until hold ends: one per shard, and
// one that counts the replicas. fail ends Run with an error (only when
// the shards are not shared, as Run documents); events go to h through
// queue, with run as their context.
func (b *Bot) holdShards(hold, run context.Context, h channels.Handler, queue func(func()), fail context.CancelCauseFunc) {
	p := &placement{shards: b.shards, held: map[int]context.CancelCauseFunc{}, replicas: 1}
	b.mu.Lock()
	b.place = p
	b.mu.Unlock()
	buckets := b.maxConcurrency(hold)
	var wg sync.WaitGroup
	defer wg.Wait()
	if b.shards > 1 && !b.local {
		pr := &presence{b: b, p: p, here: slot{role: presenceRole}, wanting: slot{role: wantingRole}}
		pr.round(hold) // counted before the first try, so a replica starting beside others takes its share only
		wg.Go(func() {
			defer pr.release()
			for clock.Sleep(hold, b.clock, b.every) {
				pr.round(hold)
			}
		})
	}
	for id := range b.shards {
		wg.Go(func() { b.shardLoop(hold, run, id, buckets, p, h, queue, fail) })
	}
}

// HeldShards returns the shards whose gateway sessions this replica holds
// now (while Run runs), in order.
func (b *Bot) HeldShards() []int {
	b.mu.Lock()
	p := b.place
	b.mu.Unlock()
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.held))
}

// maxConcurrency is the number of identify buckets: Discord's
// max_concurrency, or 1 when there is one shard or it cannot be read.
func (b *Bot) maxConcurrency(ctx context.Context) int {
	if b.shards == 1 {
		return 1
	}
	g, err := b.s.GatewayBot(discordgo.WithContext(ctx))
	if err != nil || g.SessionStartLimit.MaxConcurrency < 1 {
		if err != nil && ctx.Err() == nil {
			b.log.Warn("discord: cannot read the identify concurrency; identifying one shard at a time", "err", apiError("reading the gateway limits", err))
		}
		return 1
	}
	return g.SessionStartLimit.MaxConcurrency
}

// presence counts the replicas and those that want shards, by the
// leases they hold. Its rounds run one at a time.
type presence struct {
	b       *Bot
	p       *placement
	here    slot // discord-replica:K, held while the replica runs
	wanting slot // discord-wanting:K, held while it holds fewer than it wants
}

// slot is a lease of one of a numbered set of roles.
type slot struct {
	role func(int) string
	mine jarvisbot.Lease
	k    int
}

// probe keeps (want) or gives up this replica's lease of the set, and
// counts the leases of the set others hold. It returns the last error
// the store gave, for the round to log once.
func (sl *slot) probe(ctx context.Context, b *Bot, want bool) (others int, failed error) {
	if sl.mine != nil && (!want || channels.Closed(sl.mine.Lost())) {
		sl.release()
	}
	for k := range b.shards {
		if sl.mine != nil && k == sl.k {
			continue
		}
		got, ok, err := b.leases.TryLead(ctx, sl.role(k))
		switch {
		case err != nil:
			failed = err
		case !ok:
			others++
		case want && sl.mine == nil:
			sl.mine, sl.k = got, k
		default:
			got.Release()
		}
	}
	return others, failed
}

func (sl *slot) release() {
	if sl.mine != nil {
		sl.mine.Release()
	}
	sl.mine = nil
}

func (pr *presence) round(ctx context.Context) {
	b := pr.b
	here, err1 := pr.here.probe(ctx, b, true)
	wants, err2 := pr.wanting.probe(ctx, b, pr.p.wants())
	if err := cmp.Or(err1, err2); err != nil && ctx.Err() == nil {
		b.log.Warn("discord: cannot count the replicas; counting those the store answered for", "err", err)
	}
	replicas, wanting := 1+here, wants > 0
	for _, id := range pr.p.count(replicas, wanting, b.clock.Now(), b.grace) {
		b.log.Info("discord: giving up a shard to a replica with fewer", "shard", shardName(id, b.shards), "replicas", replicas)
	}
}

func (pr *presence) release() {
	pr.here.release()
	pr.wanting.release()
}

// shardLoop tries for shard id's lease and holds its session while it
// holds the lease, until hold ends.
func (b *Bot) shardLoop(hold, run context.Context, id, buckets int, p *placement, h channels.Handler, queue func(func()), fail context.CancelCauseFunc) {
	role := shardRole(id)
	restart := retry.New(b.clock, retry.Policy{Min: 500 * time.Millisecond, Max: 2 * time.Minute})
	wait, standing := time.Duration(0), false
	var patient time.Time // since when the replica should let others go first; zero when not
	for {
		if wait > 0 && !clock.Sleep(hold, b.clock, wait) {
			return
		}
		wait = b.every
		// Patience is looked at every retry, not slept off in one go:
		// when a replica dies, the ones that were waiting for another to
		// take its share take its shards at once.
		full, deferring := p.patience()
		waited := false
		switch {
		case !full && !deferring:
			patient = time.Time{}
		case patient.IsZero():
			patient = b.clock.Now()
			continue
		case b.clock.Now().Sub(patient) < b.grace:
			continue
		default:
			waited = true
		}
		l, ok, err := b.leases.TryLead(hold, role)
		switch {
		case err != nil:
			if hold.Err() != nil {
				return
			}
			wait = restart.Next()
			b.log.Warn("discord: cannot tell which replica holds a shard; trying again", "shard", shardName(id, b.shards), "in", wait, "err", err)
			continue
		case !ok:
			if !standing {
				b.log.Info("discord: another replica holds the shard; this one stands by to take it over", "shard", shardName(id, b.shards))
				standing = true
			}
			b.readyOnce.Do(func() { close(b.ready) }) // standing by is this replica's part
			continue
		}
		session, end := context.WithCancelCause(hold)
		if !p.take(id, full && waited, waited, end) {
			end(nil)
			l.Release()
			continue
		}
		standing, patient = false, time.Time{}
		b.log.Info("discord: this replica holds the shard", "shard", shardName(id, b.shards))
		err = b.holdShard(session, run, id, buckets, l, h, queue)
		p.drop(id)
		end(nil)
		l.Release()
		// One line for every way a hold ends, so an operator (and the
		// replicas test) can tell from the log who holds what.
		const gone = "discord: this replica let the shard go"
		switch {
		case hold.Err() != nil:
			b.log.Info(gone, "shard", shardName(id, b.shards), "why", "stopping")
			return
		case err != nil && b.local:
			fail(err)
			return
		case err != nil:
			wait = restart.Next()
			b.log.Warn(gone, "shard", shardName(id, b.shards), "why", "opening its gateway session failed", "retry_in", wait, "err", err)
		case errors.Is(context.Cause(session), errShed):
			restart.Reset()
			b.log.Info(gone, "shard", shardName(id, b.shards), "why", "another replica holds fewer shards")
		case channels.Closed(l.Lost()):
			restart.Reset()
			b.log.Warn(gone, "shard", shardName(id, b.shards), "why", "its lease was lost (the store connection broke); the session is closed")
		}
	}
}

// holdShard opens shard id's session and keeps it open until ctx ends or
// the lease is lost, then closes it. It returns an error when the session
// cannot be opened.
func (b *Bot) holdShard(ctx, run context.Context, id, buckets int, l jarvisbot.Lease, h channels.Handler, queue func(func())) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-l.Lost():
			cancel() // at once: another replica may be granted the shard
		case <-ctx.Done():
		}
	}()
	sh := b.newShard(ctx, id)
	down := make(chan struct{}, 1)
	for _, remove := range sh.handle(run, h, queue, down) {
		defer remove()
	}
	if err := b.identify(ctx, run, id%buckets, sh.open); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return gatewayError(err)
	}
	defer func() {
		if err := sh.s.Close(); err != nil {
			b.log.Warn("discord: closing the gateway connection", "shard", shardName(id, b.shards), "err", err)
		}
	}()
	b.readyOnce.Do(func() { close(b.ready) }) // Open returns after READY
	sh.keepConnected(ctx, down)
	return nil
}

// identify runs open, which identifies, holding the bucket's identify
// lease from before until IdentifyInterval after (or until run ends).
// The bucket is first taken in this process too: a store may grant a
// lease again to the process that holds it (PostgreSQL's advisory locks
// are per connection), and two shards of this replica may share a bucket.
func (b *Bot) identify(ctx, run context.Context, bucket int, open func() error) error {
	if b.local && b.shards == 1 {
		return open() // one session in one process: it identifies once, then resumes
	}
	role := identifyRole(bucket)
	here, err := b.identifying.Lead(ctx, role)
	if err != nil {
		return err
	}
	l, err := b.leases.Lead(ctx, role)
	if err != nil {
		here.Release()
		return err
	}
	err = open()
	done := func() {
		l.Release()
		here.Release()
	}
	release := b.clock.AfterFunc(b.identifyInterval, done)
	context.AfterFunc(run, func() {
		if release() {
			done()
		}
	})
	return err
}

// shard is one shard's gateway session while this replica holds it.
type shard struct {
	b   *Bot
	id  int
	s   *discordgo.Session
	ctx context.Context // ends the connections: the hold of the shard

	mu      sync.Mutex
	opening bool // Session.Open is running
}

func (b *Bot) newShard(ctx context.Context, id int) *shard {
	s, _ := discordgo.New(b.s.Token) // it fails never
	s.Client = b.s.Client
	s.ShardID, s.ShardCount = id, b.shards
	s.Identify.Intents = intents
	// Events are queued in the order the gateway sent them (Run); the
	// library's default runs each handler in its own goroutine.
	s.SyncEvents = true
	// The shard's hold reconnects, so that shutting down stops it: the
	// library's own reconnect loop retries forever and cannot be stopped.
	s.ShouldReconnectOnError = false
	s.StateEnabled = false
	sh := &shard{b: b, id: id, s: s, ctx: ctx}
	s.Dialer = sh.dialer()
	return sh
}

// handle adds the handlers that queue what the session hears; it returns
// the functions that remove them.
func (sh *shard) handle(run context.Context, h channels.Handler, queue func(func()), down chan<- struct{}) []func() {
	b := sh.b
	return []func(){
		sh.s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) {
			if msg, ok := b.message(m.Message); ok {
				queue(func() { h.HandleMessage(run, msg) })
			}
		}),
		sh.s.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) {
			b.interaction(run, i.Interaction, h, queue)
		}),
		sh.s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
			if r.Application != nil && r.Application.ID != "" {
				b.mu.Lock()
				b.appID = r.Application.ID
				b.mu.Unlock()
			}
			if r.User != nil {
				b.log.Info("discord: connected to the gateway", "bot", r.User.Username, "shard", shardName(sh.id, b.shards))
			}
		}),
		sh.s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
			select {
			case down <- struct{}{}:
			default:
			}
		}),
	}
}

// dialer dials the gateway so that the end of the shard's hold aborts an
// Open waiting on a silent gateway, which discordgo would wait on forever.
func (sh *shard) dialer() *websocket.Dialer {
	d := *websocket.DefaultDialer
	d.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if sh.ctx.Err() != nil {
			return nil, errors.New("the shard is not held")
		}
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		// Only an Open in progress is cut short; an open connection is
		// closed by holdShard, with a close frame, so Discord shows the
		// bot offline at once.
		stop := context.AfterFunc(sh.ctx, func() {
			sh.mu.Lock()
			opening := sh.opening
			sh.mu.Unlock()
			if opening {
				_ = c.Close() // cuts the Open short; Open returns the error that matters
			}
		})
		return &runConn{Conn: c, stop: stop}, nil
	}
	return &d
}

// open opens the gateway connection, which the end of the hold aborts.
func (sh *shard) open() error {
	sh.mu.Lock()
	sh.opening = true
	sh.mu.Unlock()
	defer func() {
		sh.mu.Lock()
		sh.opening = false
		sh.mu.Unlock()
	}()
	return sh.s.Open()
}

type runConn struct {
	net.Conn
	stop func() bool
}

func (c *runConn) Close() error {
	c.stop()
	return c.Conn.Close()
}

// keepConnected reopens the gateway after each drop until ctx ends: the
// first try after half a second, then backing off from 1 s to 2 min.
//
// The pause matters. When a connection dies, discordgo's heartbeat
// goroutine for it can be blocked while Close waits a second; it then
// fails its write and calls Close again, which would close a connection
// opened in that instant. A pause lets it close nothing.
func (sh *shard) keepConnected(ctx context.Context, down <-chan struct{}) {
	b := sh.b
	restart := retry.New(b.clock, retry.Policy{Min: 500 * time.Millisecond, Max: 2 * time.Minute})
	for {
		select {
		case <-ctx.Done():
			return
		case <-down:
		}
		b.log.Warn("discord: the gateway connection dropped; reconnecting", "shard", shardName(sh.id, b.shards))
		restart.Reset()
		delay := restart.Next()
		for {
			if !restart.Wait(ctx, delay) {
				return
			}
			select { // drops noticed while waiting are this one
			case <-down:
			default:
			}
			err := sh.open()
			if err == nil {
				b.log.Info("discord: reconnected to the gateway", "shard", shardName(sh.id, b.shards))
				break
			}
			if errors.Is(err, discordgo.ErrWSAlreadyOpen) {
				// The dropped connection is still being closed (its
				// heartbeat goroutine's Close); its end signals down
				// again, and the next try opens a new one.
				b.log.Debug("discord: the dropped gateway connection is still closing; reconnecting once it has")
				break
			}
			if ctx.Err() != nil {
				return
			}
			delay = restart.Next()
			b.log.Warn("discord: reconnecting to the gateway failed; retrying", "shard", shardName(sh.id, b.shards), "in", delay, "err", gatewayError(err))
		}
	}
}

// localLeases are the leases of a bot that shares its shards with no
// other process: every role is free but for the holds in this process.
type localLeases struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed on release
}

func newLocalLeases() *localLeases { return &localLeases{held: map[string]chan struct{}{}} }

func (l *localLeases) Lead(ctx context.Context, role string) (jarvisbot.Lease, error) {
	for {
		got, ok, err := l.TryLead(ctx, role)
		if err != nil || ok {
			return got, err
		}
		l.mu.Lock()
		freed := l.held[role]
		l.mu.Unlock()
		if freed == nil {
			continue
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (l *localLeases) TryLead(ctx context.Context, role string) (jarvisbot.Lease, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.held[role]; ok {
		return nil, false, nil
	}
	freed := make(chan struct{})
	l.held[role] = freed
	return &localLease{release: sync.OnceFunc(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.held, role)
		close(freed)
	})}, true, nil
}

// localLease is never lost: it lives and dies with the process.
type localLease struct{ release func() }

func (*localLease) Lost() <-chan struct{} { return nil }
func (l *localLease) Release()            { l.release() }
