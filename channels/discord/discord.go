// Package discord is the Discord channel (CH1-CH3), over discordgo.
//
// Run holds the gateway websockets open, one per shard this replica
// holds (shards.go), and turns what they hear into handler calls, in
// arrival order, from one goroutine: MESSAGE_CREATE becomes
// HandleMessage (with Audio for a voice message or an audio attachment,
// which Audio.Fetch downloads), a button click (an interaction of type 3)
// becomes HandlePress, and a slash command (type 2) becomes HandleMessage
// with the text "/name args". Send, SendVoice, Edit, Typing and
// SetCommands are REST calls and work whether or not Run is running.
//
// Across replicas (ST2) each shard's session is held under a lease, so
// exactly one replica hears a guild (or, on shard 0, the DMs) and answers
// its messages and button presses; REST calls go out from any replica.
//
// Chats are "discord:CHANNEL_ID" (guild channels and DMs alike) and users
// "discord:USER_ID".
package discord

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// Platform is the prefix of Discord chats and users: "discord:123".
const Platform = "discord"

// Options configure a Bot.
type Options struct {
	Token string // the bot token, with or without the "Bot " prefix
	// HTTPClient carries every REST call and the gateway lookup; nil is a
	// client with a 20 s timeout. The gateway websocket itself is dialled
	// directly, at the address the gateway lookup returns.
	HTTPClient *http.Client
	// APIBase, when set (and HTTPClient is not), replaces Discord's API
	// base for REST calls and gateway discovery (discord.api_base).
	APIBase string
	Logger  *slog.Logger
	// Clock times the waits before reconnecting, the shard grace and the
	// identify pacing; the wall clock when nil.
	Clock clock.Clock

	// Shards is how many gateway sessions (Discord shards) the bot's
	// guilds are spread over (discord.shards); 0 is 1.
	Shards int
	// Leases share the shards out among the replicas on one store (ST2):
	// a replica opens a shard's session only while it holds the lease
	// "discord-shard:N". Nil runs every shard in this process.
	Leases jarvisbot.Leases
	// ShardGrace is how long a replica that holds its share of the
	// shards waits before it takes another free one, and how long it
	// holds more than its share before it gives one up; 5 s when 0.
	ShardGrace time.Duration
	// ShardRetry is how often a replica below its share tries for a free
	// shard, and counts the replicas; 1 s when 0.
	ShardRetry time.Duration
	// IdentifyInterval is how long an identify bucket stays taken after
	// an IDENTIFY: Discord allows one per 5 s per bucket, the default.
	IdentifyInterval time.Duration
}

// Intents: messages in guild channels and DMs, with their text. Message
// content is a privileged intent: enable it for the bot in Discord's
// developer portal, or guild messages that do not mention the bot arrive
// empty (and are dropped).
const intents = discordgo.IntentsGuildMessages | discordgo.IntentsDirectMessages | discordgo.IntentsMessageContent

// ackAfter is how long a button press may wait for Answer before the bot
// acknowledges it by itself: Discord marks an interaction failed when the
// first answer takes more than 3 s.
const ackAfter = 2500 * time.Millisecond

// Bot is one Discord bot account.
type Bot struct {
	// fileHosts are the hosts attachments are downloaded from: Discord's
	// CDN, and the API base's when one is set (fileHosts).
	fileHosts map[string]bool
	s         *discordgo.Session
	log       *slog.Logger
	self      string // the bot's user id
	ackAfter  time.Duration
	clock     clock.Clock

	// Sharding across replicas (ST2); see shards.go.
	shards           int
	leases           jarvisbot.Leases
	local            bool         // leases are this process's own: nothing to share with
	identifying      *localLeases // the identify buckets taken in this process
	grace, every     time.Duration
	identifyInterval time.Duration

	mu      sync.Mutex
	appID   string        // from READY; until then the bot's user id, which is the same for bots
	running bool          // Run is running
	place   *placement    // the shards Run holds
	acks    map[*ack]bool // presses not yet answered, while Run runs

	ready     chan struct{} // closed when the first gateway session is ready
	readyOnce sync.Once
}

var (
	_ channels.Channel     = (*Bot)(nil)
	_ channels.Typer       = (*Bot)(nil)
	_ channels.Commander   = (*Bot)(nil)
	_ channels.Readier     = (*Bot)(nil)
	_ channels.VoiceSender = (*Bot)(nil)
)

// Ready is closed when Run's first gateway session is ready (READY).
func (b *Bot) Ready() <-chan struct{} { return b.ready }

// New checks the token with Discord (GET /users/@me) and returns the bot.
func New(ctx context.Context, opt Options) (*Bot, error) {
	token := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(opt.Token), "Bot "))
	if token == "" {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "discord: no bot token is set: store one with `jarvisbot secrets set DISCORD_BOT_TOKEN`")
	}
	if opt.HTTPClient == nil && opt.APIBase != "" {
		c, err := apiBaseClient(opt.APIBase)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "discord: %w", err)
		}
		opt.HTTPClient = c
	}
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "discord: creating the session: %w", err)
	}
	b := &Bot{s: s, log: opt.Logger, ackAfter: ackAfter, acks: map[*ack]bool{}, ready: make(chan struct{}), fileHosts: fileHosts(opt.APIBase)}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	b.clock = opt.Clock
	if b.clock == nil {
		b.clock = clock.Real{}
	}
	s.Client = opt.HTTPClient
	if s.Client == nil {
		s.Client = &http.Client{Timeout: 20 * time.Second}
	}
	// b.s only makes REST calls; each shard opens a session of its own
	// (shards.go), so a send works on every replica, holding a shard or not.
	s.StateEnabled = false
	b.shards = max(opt.Shards, 1)
	b.identifying = newLocalLeases()
	b.leases, b.local = opt.Leases, opt.Leases == nil
	if b.local {
		b.leases = newLocalLeases()
	}
	b.grace = cmp.Or(opt.ShardGrace, defaultShardGrace)
	b.every = cmp.Or(opt.ShardRetry, defaultShardRetry)
	b.identifyInterval = cmp.Or(opt.IdentifyInterval, defaultIdentifyInterval)

	u, err := s.User("@me", discordgo.WithContext(ctx))
	if err != nil {
		return nil, apiError("checking the bot token", err)
	}
	b.self, b.appID = u.ID, u.ID
	return b, nil
}

// Name is "discord".
func (b *Bot) Name() string { return Platform }

// Run opens the gateway sessions of the shards this replica holds and
// passes what they hear to h until ctx ends; a session reconnects
// (resuming) when its connection drops. Events of all shards reach h in
// the order each gateway sent them, from one goroutine. It returns nil
// after ctx ends, about a second later (the library waits for the
// gateway to close). Without Options.Leases it returns an error when a
// shard's first connection fails; with them, it logs the failure and
// tries again, since another replica may do better.
func (b *Bot) Run(ctx context.Context, h channels.Handler) error {
	b.mu.Lock()
	if b.running {
		b.mu.Unlock()
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "discord: the bot is already running")
	}
	b.running = true
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.running = false
		for a := range b.acks {
			a.stop()
		}
		clear(b.acks)
		b.mu.Unlock()
	}()

	// The gateways' readers only queue; one loop below calls h, so a
	// slow handler never delays heartbeats.
	events := make(chan func(), 256)
	queue := func(f func()) {
		select {
		case events <- f:
		case <-ctx.Done():
		}
	}
	hold, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.holdShards(hold, ctx, h, queue, stop)
	}()
	for {
		select {
		case <-hold.Done():
			<-done
			if ctx.Err() != nil {
				return nil
			}
			return context.Cause(hold)
		case f := <-events:
			f()
		}
	}
}

// message converts a MESSAGE_CREATE; it drops the bot's own messages,
// system messages, and messages with neither text nor audio (V1: a voice
// message or an audio attachment, whose text is its caption if any).
func (b *Bot) message(m *discordgo.Message) (channels.Message, bool) {
	if m == nil || m.Author == nil || m.Author.ID == b.self {
		return channels.Message{}, false
	}
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return channels.Message{}, false
	}
	// In a guild channel the bot answers only when it is addressed: a
	// mention, or a reply to one of its messages. Direct messages always.
	// Audio is no exception: a voice message in a guild (which has no
	// text to mention anyone in) is taken only as a reply to the bot.
	if m.GuildID != "" && !b.addressed(m) {
		return channels.Message{}, false
	}
	text := m.Content
	for _, mention := range []string{"<@" + b.self + ">", "<@!" + b.self + ">"} {
		text = strings.TrimPrefix(strings.TrimSpace(text), mention)
	}
	text = strings.TrimSpace(text)
	audio := b.audio(m)
	var file *channels.File
	if audio == nil {
		file = b.file(m)
	}
	if text == "" && audio == nil && file == nil {
		b.log.Debug("discord: dropped a message without text or audio (another attachment, or the Message Content intent is off)", "chat", m.ChannelID)
		return channels.Message{}, false
	}
	return channels.Message{
		Chat:  Platform + ":" + m.ChannelID,
		User:  Platform + ":" + m.Author.ID,
		Name:  displayName(m.Author, m.Member),
		Text:  text,
		ID:    m.ID,
		Audio: audio,
		File:  file,
	}, true
}

// addressed reports whether a guild message mentions the bot or replies
// to it.
func (b *Bot) addressed(m *discordgo.Message) bool {
	for _, u := range m.Mentions {
		if u != nil && u.ID == b.self {
			return true
		}
	}
	if strings.Contains(m.Content, "<@"+b.self+">") || strings.Contains(m.Content, "<@!"+b.self+">") {
		return true
	}
	return m.ReferencedMessage != nil && m.ReferencedMessage.Author != nil && m.ReferencedMessage.Author.ID == b.self
}

func displayName(u *discordgo.User, m *discordgo.Member) string {
	switch {
	case m != nil && m.Nick != "":
		return m.Nick
	case u.GlobalName != "":
		return u.GlobalName
	}
	return u.Username
}

// interaction turns a button press into HandlePress and a slash command
// into HandleMessage. A slash command is answered at once with an
// ephemeral echo, since Discord wants a first answer within 3 s and the
// reply comes later as an ordinary message.
func (b *Bot) interaction(ctx context.Context, i *discordgo.Interaction, h channels.Handler, queue func(func())) {
	u := i.User
	if i.Member != nil && i.Member.User != nil {
		u = i.Member.User
	}
	if u == nil {
		return
	}
	switch i.Type {
	case discordgo.InteractionMessageComponent:
		p := channels.Press{
			Chat: Platform + ":" + i.ChannelID,
			User: Platform + ":" + u.ID,
			Data: i.MessageComponentData().CustomID,
		}
		if i.Message != nil {
			p.MessageID = i.Message.ID
		}
		p.Answer = b.newAck(i).answer
		queue(func() { h.HandlePress(ctx, p) })
	case discordgo.InteractionApplicationCommand:
		d := i.ApplicationCommandData()
		text := "/" + d.Name
		for _, o := range d.Options {
			if o.Type == discordgo.ApplicationCommandOptionString {
				text += " " + o.StringValue()
			}
		}
		err := b.s.InteractionRespond(i, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions()},
		}, discordgo.WithContext(ctx))
		if err != nil {
			b.log.Warn("discord: answering a slash command", "command", d.Name, "err", apiError("answering /"+d.Name, err))
		}
		m := channels.Message{Chat: Platform + ":" + i.ChannelID, User: Platform + ":" + u.ID, Name: displayName(u, i.Member), Text: text, ID: i.ID}
		queue(func() { h.HandleMessage(ctx, m) })
	}
}

// ack is the first answer a press owes Discord: the handler's Answer, or
// a silent acknowledgement when Answer is late.
type ack struct {
	b     *Bot
	i     *discordgo.Interaction
	mu    sync.Mutex // held across the request, so the two answers never race
	done  bool
	timer *time.Timer
}

func (b *Bot) newAck(i *discordgo.Interaction) *ack {
	a := &ack{b: b, i: i}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.acks[a] = true
	a.timer = time.AfterFunc(b.ackAfter, func() {
		b.mu.Lock()
		delete(b.acks, a)
		b.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := a.respond(ctx, ""); err != nil {
			b.log.Warn("discord: acknowledging a button press", "err", err)
		}
	})
	return a
}

// stop cancels the automatic acknowledgement; b.mu is held.
func (a *ack) stop() { a.timer.Stop() }

// answer is Press.Answer: an ephemeral notice to the one who pressed, or
// with notice "" a bare acknowledgement. A notice after the automatic
// acknowledgement goes as an ephemeral follow-up message.
func (a *ack) answer(ctx context.Context, notice string) error {
	a.b.mu.Lock()
	a.timer.Stop()
	delete(a.b.acks, a)
	a.b.mu.Unlock()
	return a.respond(ctx, notice)
}

func (a *ack) respond(ctx context.Context, notice string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if parts := split(notice, maxContent); len(parts) > 0 {
		notice = parts[0]
	} else {
		notice = ""
	}
	if a.done {
		if notice == "" {
			return nil
		}
		_, err := a.b.s.FollowupMessageCreate(a.i, false, &discordgo.WebhookParams{
			Content: notice, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions(),
		}, discordgo.WithContext(ctx))
		if err != nil {
			return apiError("answering a button press", err)
		}
		return nil
	}
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if notice != "" {
		resp = &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: notice, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions()},
		}
	}
	if err := a.b.s.InteractionRespond(a.i, resp, discordgo.WithContext(ctx)); err != nil {
		return apiError("answering a button press", err)
	}
	a.done = true
	return nil
}
