package fakediscord

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// shardClient is a discordgo session on one shard that keeps the channel
// ids of the messages it hears.
type shardClient struct {
	s    *discordgo.Session
	mu   sync.Mutex
	seen []string
}

func openShard(t *testing.T, srv *Server, id, count int) *shardClient {
	t.Helper()
	s, _ := discordgo.New("Bot " + srv.Token())
	s.Client = srv.HTTPClient()
	s.ShardID, s.ShardCount = id, count
	s.Identify.Intents = IntentGuildMessages | IntentDirectMessages | IntentMessageContent
	s.ShouldReconnectOnError, s.StateEnabled, s.SyncEvents = false, false, true
	c := &shardClient{s: s}
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.seen = append(c.seen, m.ChannelID)
	})
	if err := s.Open(); err != nil {
		t.Fatalf("opening shard %d of %d: %v", id, count, err)
	}
	t.Cleanup(func() { s.Close() })
	return c
}

func (c *shardClient) heard() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

// TestShardsHearTheirGuildsST2: a guild's messages reach the session of
// shard (guild_id >> 22) % count alone and DMs shard 0; every IDENTIFY is
// counted with its shard, and a second session on an open shard is
// recorded as a duplicate.
func TestShardsHearTheirGuildsST2(t *testing.T) {
	t.Parallel()
	srv := New(t)
	const count = 3
	clients := make([]*shardClient, count)
	for id := range count {
		clients[id] = openShard(t, srv, id, count)
	}
	var chans []string
	for id := range count {
		g := srv.Guild(id, count)
		ch := srv.GuildChannel(g)
		if got := srv.ShardOf(ch, count); got != id {
			t.Fatalf("Guild(%d, %d) made a guild on shard %d", id, count, got)
		}
		chans = append(chans, ch)
		srv.SendText(ch, "300", "hello")
	}
	dm := srv.DMChannel("300")
	srv.SendText(dm, "300", "hello in private")
	for id, c := range clients {
		want := []string{chans[id]}
		if id == 0 {
			want = append(want, dm)
		}
		testwait.For(t, 5*time.Second, "the messages of the shard", func() (bool, any) {
			got := c.heard()
			return slices.Equal(got, want), got
		})
	}
	ids := srv.ShardIdentifies()
	if len(ids) != count {
		t.Fatalf("%d identifies, want %d: %+v", len(ids), count, ids)
	}
	for i, id := range ids {
		if id.Shard != i || id.Shards != count {
			t.Errorf("identify %d: shard %d of %d", i, id.Shard, id.Shards)
		}
	}
	if d := srv.Duplicates(); len(d) != 0 {
		t.Fatalf("duplicates before any: %+v", d)
	}
	openShard(t, srv, 1, count)
	if d := srv.Duplicates(); len(d) != 1 || d[0].Shard != 1 {
		t.Errorf("a second session on shard 1: duplicates %+v", d)
	}
	testwait.For(t, 5*time.Second, "both sessions of shard 1 ready", func() (bool, any) {
		n := srv.ShardSessions()
		return n[1] == 2, n
	})
}
