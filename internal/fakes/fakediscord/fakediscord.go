// Package fakediscord is an in-process Discord for tests: a real HTTP
// server with the REST routes jarvisbot uses and a websocket gateway that
// speaks the gateway protocol (HELLO, IDENTIFY, READY, heartbeats, RESUME,
// dispatches). A test drives it from the user's side (SendText, SendVoice,
// SendAudio, Post, Click, SlashCommand) and reads back what the bot did
// (Sent, with the files it uploaded; InteractionReplies, Commands, Typing).
//
// Sharding is Discord's: a session that identifies with shard [id, count]
// hears the guilds with (guild_id >> 22) % count == id, and shard 0 the
// DMs (Guild makes a guild on a chosen shard). The fake counts IDENTIFYs
// with their shards and times, and records a session that identifies a
// shard another session has open (Duplicates), which Discord allows and
// which makes a bot answer twice.
//
// The bot reaches it through HTTPClient, whose transport sends requests
// for Discord's API host to the fake, lets requests to the fake itself
// pass, and refuses every other host; the gateway URL and the attachment
// URLs the fake hands out point at itself. Nothing global is
// touched, so tests using separate servers may run in parallel.
//
// It serves the tests of CH1–CH3 on Discord.
package fakediscord

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// Routes, named as in Discord's documentation, for FailNext and Requests.
const (
	RouteGateway       = "GET /gateway"
	RouteGatewayBot    = "GET /gateway/bot"
	RouteMe            = "GET /users/@me"
	RouteCreateMessage = "POST /channels/{channel}/messages"
	RouteEditMessage   = "PATCH /channels/{channel}/messages/{message}"
	RouteTyping        = "POST /channels/{channel}/typing"
	RouteCallback      = "POST /interactions/{interaction}/{token}/callback"
	RouteFollowup      = "POST /webhooks/{application}/{token}"
	RouteSetCommands   = "PUT /applications/{application}/commands"
	// RouteAttachment is the download of a file a user sent, which
	// Discord serves from its CDN and the fake from its own address.
	RouteAttachment     = "GET /attachments/{channel}/{attachment}/{filename}"
	apiPrefix           = "/api/v9"
	gatewayPath         = "/gateway-ws"
	defaultHeartbeatMS  = 1000
	maxContentLength    = 2000
	maxCustomIDLength   = 100
	maxButtonLabelChars = 80
	// maxUploadBytes is the most a bot may upload in one message where
	// the server has no boost (Discord answers 413 beyond it).
	maxUploadBytes = 10 << 20
)

// Intents the fake honours when it dispatches (Discord's bit values).
const (
	IntentGuildMessages  = 1 << 9
	IntentDirectMessages = 1 << 12
	IntentMessageContent = 1 << 15
)

// Button is one button as the bot sent it.
type Button struct {
	Label    string
	CustomID string
	Style    int
}

// Message is one message the bot created, or the state of one after an
// edit (by PATCH or by an interaction reply of type 7).
type Message struct {
	ID        string
	ChannelID string
	Content   string
	Rows      [][]Button
	Edit      bool   // this entry records an edit of an earlier message
	ReplyTo   string // the message_reference's message id; "" when not a reply
	Files     []File // uploaded with the message (multipart), in order
	Flags     int    // as created: 4 suppresses embeds (link previews)
}

// File is one file the bot uploaded with a message.
type File struct {
	Name        string // the part's filename
	ContentType string // the part's Content-Type
	Data        []byte
}

// InteractionReply is one answer the bot gave to an interaction.
type InteractionReply struct {
	InteractionID string
	Type          int // 4 reply, 5 deferred reply, 6 deferred update, 7 update message; 0 for a followup
	Content       string
	Flags         int
	Ephemeral     bool // flags include 64: only the one who clicked sees it
}

// Command is one registered slash command.
type Command struct {
	ID          string
	Name        string
	Description string
	Options     []CommandOption
}

// CommandOption is one option of a slash command.
type CommandOption struct {
	Type        int    `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required,omitempty"`
}

type interaction struct {
	id, token string
	acked     bool
	messageID string
	channelID string
}

// Server is one fake Discord. Its methods are safe for concurrent use.
type Server struct {
	// OwnAddressLinks puts the links of the files users send on the
	// fake's own address instead of Discord's CDN host, for a client that
	// reaches the fake as discord.api_base (which forwards the API host
	// only). Set it before users send files.
	OwnAddressLinks bool

	t     Reporter
	http  *httptest.Server
	token string
	bot   user
	guild string

	mu           sync.Mutex
	seq          int64
	changed      chan struct{} // closed and replaced when a gateway session becomes ready or goes
	conns        map[*gwConn]bool
	closed       bool
	sessions     map[string]*session // by id, for RESUME
	messages     map[string]*Message
	sent         []Message
	replies      []InteractionReply
	commands     []Command
	typing       []string
	interactions map[string]*interaction
	dms          map[string]string // channel id -> user id
	guilds       map[string]string // channel id -> guild id, for channels of GuildChannel
	guildIDs     []string          // every guild, the first s.guild
	attachments  map[string]*attachment
	fails        map[string][]int
	requests     map[string]int
	identifies   []Identify
	duplicates   []Identify // IDENTIFYs of a shard another session had open
	concurrency  int        // max_concurrency of GET /gateway/bot
	heartbeats   int
	closeCodes   []int
	silent       bool
	heartbeat    time.Duration // the HELLO's heartbeat_interval
	wg           sync.WaitGroup
}

type user struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name,omitempty"`
	Bot        bool   `json:"bot,omitempty"`
}

// Reporter is what the fake needs of whoever runs it: a *testing.T, or a
// program that serves the fake outside a test (scripts/footprint). Errorf
// reports a request or a test action the real Discord would refuse.
type Reporter interface {
	Errorf(format string, args ...any)
	Cleanup(func())
}

// New starts a fake Discord that stops when the test ends.
func New(t Reporter) *Server {
	s := &Server{
		t:            t,
		token:        "fake-token." + strconv.FormatInt(time.Now().UnixNano(), 36),
		changed:      make(chan struct{}),
		conns:        map[*gwConn]bool{},
		sessions:     map[string]*session{},
		messages:     map[string]*Message{},
		interactions: map[string]*interaction{},
		dms:          map[string]string{},
		guilds:       map[string]string{},
		concurrency:  1,
		attachments:  map[string]*attachment{},
		fails:        map[string][]int{},
		requests:     map[string]int{},
		seq:          1_100_000_000_000_000_000,
		heartbeat:    defaultHeartbeatMS * time.Millisecond,
	}
	s.bot = user{ID: s.id(), Username: "jarvisbot", Bot: true}
	s.guild = s.id()
	s.guildIDs = []string{s.guild}

	mux := http.NewServeMux()
	// discordgo adds a slash before the query; other clients may not.
	mux.HandleFunc("GET "+gatewayPath, s.serveGateway)
	mux.HandleFunc("GET "+gatewayPath+"/{$}", s.serveGateway)
	s.route(mux, RouteGateway, false, s.gateway)
	s.route(mux, RouteGatewayBot, true, s.gatewayBot)
	s.route(mux, RouteMe, true, s.me)
	s.route(mux, RouteCreateMessage, true, s.createMessage)
	s.route(mux, RouteEditMessage, true, s.editMessage)
	s.route(mux, RouteTyping, true, s.typingStart)
	s.route(mux, RouteCallback, false, s.callback)
	s.route(mux, RouteFollowup, false, s.followup)
	s.route(mux, RouteSetCommands, true, s.setCommands)
	s.handle(mux, "", RouteAttachment, false, s.serveAttachment)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.t.Errorf("fakediscord: unexpected request %s %s", r.Method, r.URL.Path)
		writeError(w, http.StatusNotFound, 0, "404: Not Found")
	})
	s.http = httptest.NewServer(mux)
	t.Cleanup(s.close)
	return s
}

func (s *Server) close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.ws.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.http.Close()
}

// Token is the bot token the fake accepts (with or without "Bot ").
func (s *Server) Token() string { return s.token }

// BotID is the bot's user id, which is also its application id.
func (s *Server) BotID() string { return s.bot.ID }

// GuildID is the one guild every non-DM channel belongs to.
func (s *Server) GuildID() string { return s.guild }

// DMChannel returns the id of a new direct-message channel with userID.
func (s *Server) DMChannel(userID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.idLocked()
	s.dms[id] = userID
	return id
}

// HTTPClient returns a client for the bot: requests to Discord's API host
// go to the fake, requests to the fake's own address (attachments) pass,
// requests to any other host fail.
func (s *Server) HTTPClient() *http.Client {
	return &http.Client{Transport: newRewrite(s.http.URL), Timeout: 10 * time.Second}
}

// FailNext makes the next n requests on route fail with status: 429 comes
// with Discord's rate-limit body and headers (retry after 50 ms), any
// other status with an error body.
func (s *Server) FailNext(route string, n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.fails[route] = append(s.fails[route], status)
	}
}

// Requests counts the requests route has received, failed ones included.
func (s *Server) Requests(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[route]
}

// Sent returns every message the bot created or edited, in order.
func (s *Server) Sent() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.sent))
	copy(out, s.sent)
	return out
}

// InteractionReplies returns the bot's answers to interactions, in order.
func (s *Server) InteractionReplies() []InteractionReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]InteractionReply, len(s.replies))
	copy(out, s.replies)
	return out
}

// Commands returns the registered global slash commands.
func (s *Server) Commands() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Command, len(s.commands))
	copy(out, s.commands)
	return out
}

// Typing returns the channels the bot showed "typing…" in, in order.
func (s *Server) Typing() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.typing))
	copy(out, s.typing)
	return out
}

// Identify is one IDENTIFY the gateway accepted.
type Identify struct {
	Intents int
	// Shard and Shards are the identify's shard [id, count]; a session
	// that gave none is shard 0 of 1 and hears every guild.
	Shard, Shards int
	At            time.Time
}

// Identifies returns the intents of every IDENTIFY received.
func (s *Server) Identifies() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int, len(s.identifies))
	for i, id := range s.identifies {
		out[i] = id.Intents
	}
	return out
}

// ShardIdentifies returns every IDENTIFY received, in order.
func (s *Server) ShardIdentifies() []Identify { return restapi.Copy(&s.mu, &s.identifies) }

// Duplicates returns the IDENTIFYs of a shard that another gateway
// session had open at the time. Discord lets the second in and sends the
// shard's events to both, so a bot doing it answers every message twice;
// the fake does the same, and records it for the test to assert on.
func (s *Server) Duplicates() []Identify { return restapi.Copy(&s.mu, &s.duplicates) }

// SetMaxConcurrency sets the max_concurrency GET /gateway/bot reports:
// how many identify buckets there are (shard % max_concurrency), each
// allowing one IDENTIFY per 5 s. It is 1 by default, as for most bots.
func (s *Server) SetMaxConcurrency(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.concurrency = n
}

// Guild returns the id of a new guild that Discord places on shard of
// shards: (guild_id >> 22) % shards == shard.
func (s *Server) Guild(shard, shards int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq += 1 << 22 // a new timestamp part for every guild
	ts := s.seq >> 22
	for ts%int64(shards) != int64(shard) {
		ts++
	}
	s.seq = ts<<22 | 1
	id := strconv.FormatInt(s.seq, 10)
	s.guildIDs = append(s.guildIDs, id)
	return id
}

// GuildChannel returns the id of a new text channel in guild (from Guild
// or GuildID). Channels the fake did not make belong to GuildID's guild.
func (s *Server) GuildChannel(guild string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.idLocked()
	s.guilds[id] = guild
	return id
}

// ShardOf is the shard of shards that hears channelID: its guild's by
// Discord's formula, 0 for a DM.
func (s *Server) ShardOf(channelID string, shards int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shardOfLocked(s.guildOfLocked(channelID), shards)
}

// guildOfLocked is the guild of channelID; "" for a DM.
func (s *Server) guildOfLocked(channelID string) string {
	if _, dm := s.dms[channelID]; dm {
		return ""
	}
	if g, ok := s.guilds[channelID]; ok {
		return g
	}
	return s.guild
}

// shardOfLocked is Discord's formula: DMs on shard 0, a guild on
// (guild_id >> 22) % shards.
func (s *Server) shardOfLocked(guild string, shards int) int {
	if guild == "" || shards <= 1 {
		return 0
	}
	id, err := strconv.ParseInt(guild, 10, 64)
	if err != nil {
		s.t.Errorf("fakediscord: guild id %q is not a snowflake", guild)
		return 0
	}
	return int((id >> 22) % int64(shards))
}

// ShardSessions counts the ready gateway sessions of each shard id.
func (s *Server) ShardSessions() map[int]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int]int{}
	for c := range s.conns {
		if c.ready {
			out[c.shard]++
		}
	}
	return out
}

// Heartbeats counts the heartbeats (op 1) received.
func (s *Server) Heartbeats() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heartbeats
}

func (s *Server) id() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idLocked()
}

func (s *Server) idLocked() string {
	s.seq++
	return strconv.FormatInt(s.seq, 10)
}

// route registers a REST handler under Discord's API prefix, counting
// requests, checking the bot token where Discord does, and failing as
// FailNext asked.
func (s *Server) route(mux *http.ServeMux, route string, auth bool, h http.HandlerFunc) {
	s.handle(mux, apiPrefix, route, auth, h)
}

// handle registers route under prefix, as route does.
func (s *Server) handle(mux *http.ServeMux, prefix, route string, auth bool, h http.HandlerFunc) {
	method, path, _ := strings.Cut(route, " ")
	mux.HandleFunc(method+" "+prefix+path, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[route]++
		var fail int
		if q := s.fails[route]; len(q) > 0 {
			fail, s.fails[route] = q[0], q[1:]
		}
		s.mu.Unlock()
		if auth && !s.authorized(r) {
			writeError(w, http.StatusUnauthorized, 0, "401: Unauthorized")
			return
		}
		switch {
		case fail == http.StatusTooManyRequests:
			w.Header().Set("X-RateLimit-Limit", "5")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", strconv.FormatFloat(float64(time.Now().Add(50*time.Millisecond).UnixMilli())/1000, 'f', 3, 64))
			w.Header().Set("X-RateLimit-Reset-After", "0.050")
			w.Header().Set("X-RateLimit-Bucket", "fake-"+strings.ReplaceAll(route, " ", "-"))
			w.Header().Set("X-RateLimit-Scope", "user")
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, map[string]any{
				"message": "You are being rate limited.", "retry_after": 0.05, "global": false, "code": 0,
			})
		case fail != 0:
			writeError(w, fail, 0, strconv.Itoa(fail)+": "+http.StatusText(fail))
		default:
			h(w, r)
		}
	})
}

func (s *Server) authorized(r *http.Request) bool {
	return s.validToken(r.Header.Get("Authorization"))
}

func (s *Server) validToken(tok string) bool {
	return strings.TrimPrefix(tok, "Bot ") == s.token
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "code": code})
}

// newRewrite returns the transport of HTTPClient.
func newRewrite(target string) http.RoundTripper {
	return &rewrite{target: target, base: http.DefaultTransport.(*http.Transport).Clone()}
}

// URL is the fake's base address, for discord.api_base.
func (s *Server) URL() string { return s.http.URL }
