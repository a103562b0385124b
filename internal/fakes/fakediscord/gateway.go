package fakediscord

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// gwConn is one gateway websocket.
type gwConn struct {
	ws      *websocket.Conn
	wmu     sync.Mutex // gorilla allows one writer at a time
	session string     // set by IDENTIFY or RESUME; guarded by Server.mu
	intents int        // guarded by Server.mu
	// shard and shards are the IDENTIFY's shard [id, count]; shards is 0
	// for a session that gave none. Guarded by Server.mu.
	shard, shards int
	ready         bool // READY or RESUMED sent; guarded by Server.mu
	// readying is set just before READY goes out, so a bot that has read
	// READY always finds it set (ReadySent); guarded by Server.mu.
	readying bool
}

// session is what a gateway session keeps across connections: Discord
// replays the events a resumed session missed.
type session struct {
	seq           int64
	intents       int
	shard, shards int
	sent          []event // the latest dispatches, for replay
}

type event struct {
	Op   int    `json:"op"`
	Seq  int64  `json:"s"`
	Type string `json:"t"`
	Data any    `json:"d"`
}

const replayWindow = 1000

type frame struct {
	Op   int             `json:"op"`
	Data json.RawMessage `json:"d"`
	Seq  *int64          `json:"s"`
	Type *string         `json:"t"`
}

func (c *gwConn) write(v any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

func (c *gwConn) closeWith(code int, text string) {
	c.wmu.Lock()
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
	c.wmu.Unlock()
	c.ws.Close()
}

func (s *Server) wsURL() string {
	return "ws" + strings.TrimPrefix(s.http.URL, "http") + gatewayPath
}

func (s *Server) gateway(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"url": s.wsURL()})
}

func (s *Server) gatewayBot(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"url": s.wsURL(), "shards": 1,
		"session_start_limit": map[string]any{"total": 1000, "remaining": 999, "reset_after": 14400000, "max_concurrency": s.maxConcurrency()},
	})
}

func (s *Server) maxConcurrency() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.concurrency
}

// serveGateway runs one gateway connection: HELLO, then IDENTIFY or
// RESUME, heartbeats, until either side closes.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	if v, enc := r.URL.Query().Get("v"), r.URL.Query().Get("encoding"); v != "9" || enc != "json" {
		http.Error(w, "fakediscord speaks gateway v9 with JSON encoding only", http.StatusBadRequest)
		return
	}
	up := websocket.Upgrader{}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &gwConn{ws: ws}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.Close()
		return
	}
	s.wg.Add(1)
	s.conns[c] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.notifyLocked()
		s.mu.Unlock()
		ws.Close()
		s.wg.Done()
	}()

	s.mu.Lock()
	silent, interval := s.silent, s.heartbeat
	s.mu.Unlock()
	if silent {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}
	if c.write(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": interval.Milliseconds()}}) != nil {
		return
	}
	for {
		// Discord drops a connection whose heartbeats stop.
		ws.SetReadDeadline(time.Now().Add(3 * interval))
		var f frame
		if err := ws.ReadJSON(&f); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				s.mu.Lock()
				s.closeCodes = append(s.closeCodes, ce.Code)
				s.mu.Unlock()
			}
			return
		}
		switch f.Op {
		case 1: // heartbeat
			s.mu.Lock()
			s.heartbeats++
			s.mu.Unlock()
			if c.write(map[string]any{"op": 11}) != nil {
				return
			}
		case 2: // identify
			var id struct {
				Token   string `json:"token"`
				Intents int    `json:"intents"`
				Shard   []int  `json:"shard"`
			}
			if !s.readAuthed(c, f.Data, &id, &id.Token) {
				return
			}
			s.mu.Lock()
			if c.session != "" {
				s.mu.Unlock()
				c.closeWith(4005, "Already authenticated.")
				return
			}
			shard, shards := 0, 0
			if id.Shard != nil {
				if len(id.Shard) != 2 || id.Shard[1] < 1 || id.Shard[0] < 0 || id.Shard[0] >= id.Shard[1] {
					s.mu.Unlock()
					c.closeWith(4010, "Invalid shard.")
					return
				}
				shard, shards = id.Shard[0], id.Shard[1]
			}
			c.session = s.idLocked()
			c.intents, c.shard, c.shards = id.Intents, shard, shards
			ident := Identify{Intents: id.Intents, Shard: shard, Shards: max(shards, 1), At: time.Now()}
			for o := range s.conns {
				if o != c && (o.ready || o.readying) && o.shard == shard && o.shards == shards {
					s.duplicates = append(s.duplicates, ident)
					break
				}
			}
			s.identifies = append(s.identifies, ident)
			s.sessions[c.session] = &session{intents: id.Intents, shard: shard, shards: shards}
			var guilds []any
			for _, g := range s.guildIDs {
				if s.shardOfLocked(g, shards) == shard {
					guilds = append(guilds, map[string]any{"id": g, "unavailable": true})
				}
			}
			c.readying = true
			s.mu.Unlock()
			s.send(c, "READY", map[string]any{
				"v": 9, "user": s.bot, "session_id": c.session, "resume_gateway_url": s.wsURL(),
				"guilds": guilds, "private_channels": []any{},
				"shard": []int{shard, max(shards, 1)}, "application": map[string]any{"id": s.bot.ID, "flags": 0},
			})
			s.markReady(c)
		case 6: // resume
			var res struct {
				Token     string `json:"token"`
				SessionID string `json:"session_id"`
				Seq       int64  `json:"seq"`
			}
			if !s.readAuthed(c, f.Data, &res, &res.Token) {
				return
			}
			s.mu.Lock()
			sess, known := s.sessions[res.SessionID]
			var missed []event
			if known {
				c.session = res.SessionID
				c.intents, c.shard, c.shards = sess.intents, sess.shard, sess.shards
				for _, e := range sess.sent {
					if e.Seq > res.Seq {
						missed = append(missed, e)
					}
				}
			}
			s.mu.Unlock()
			if !known {
				if c.write(map[string]any{"op": 9, "d": false}) != nil {
					return
				}
				continue
			}
			for _, e := range missed {
				if c.write(e) != nil {
					return
				}
			}
			s.send(c, "RESUMED", map[string]any{})
			s.markReady(c)
		case 3, 4, 8: // presence, voice state, request members: accepted, ignored
		default:
			c.closeWith(4001, "Unknown opcode.")
			return
		}
	}
}

func (s *Server) markReady(c *gwConn) {
	s.mu.Lock()
	c.ready = true
	s.notifyLocked()
	s.mu.Unlock()
}

// notifyLocked wakes whoever waits for a change in the ready sessions.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// send dispatches one event on c with the session's next sequence
// number, and keeps it for a resume.
func (s *Server) send(c *gwConn, typ string, data any) {
	s.mu.Lock()
	sess := s.sessions[c.session]
	sess.seq++
	e := event{Op: 0, Seq: sess.seq, Type: typ, Data: data}
	sess.sent = append(sess.sent, e)
	if len(sess.sent) > replayWindow {
		sess.sent = sess.sent[len(sess.sent)-replayWindow:]
	}
	s.mu.Unlock()
	c.write(e)
}

// dispatch sends an event of guild ("" for a DM) to every ready session
// of the guild's shard whose intents ask for it, waiting up to five
// seconds for one to be ready. It reports whether any session got it.
func (s *Server) dispatch(event, guild string, intent int, data func(intents int) any) bool {
	var ready []*gwConn
	intents := map[*gwConn]int{}
	err := testwait.Until(5*time.Second, "a bot connected to the gateway to receive "+event, func() (bool, any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		ready, intents = ready[:0], map[*gwConn]int{}
		for c := range s.conns {
			if c.ready && s.shardOfLocked(guild, c.shards) == c.shard {
				ready = append(ready, c)
				intents[c] = c.intents
			}
		}
		return len(ready) > 0, fmt.Sprintf("%d connections, none ready on the shard of guild %q", len(s.conns), guild)
	}, testwait.WithChange(s.changes))
	if err != nil {
		s.t.Errorf("fakediscord: %v", err)
		return false
	}
	got := false
	for _, c := range ready {
		if intent != 0 && intents[c]&intent == 0 {
			continue
		}
		s.send(c, event, data(intents[c]))
		got = true
	}
	return got
}

// changes returns the channel closed when a gateway session next becomes
// ready or goes.
func (s *Server) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// DropConnections cuts every gateway connection without a close frame,
// as a network failure would; the sessions stay resumable.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.ready = false
		c.ws.Close()
	}
	s.notifyLocked()
}

// SilentGateway makes the gateway accept connections from now on and then
// say nothing, not even HELLO, as a gateway that hangs would.
func (s *Server) SilentGateway() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silent = true
}

// SetHeartbeatInterval sets the heartbeat_interval of the HELLO that
// later connections get: 1s by default, so tests see heartbeats soon;
// Discord itself asks for about 41s.
func (s *Server) SetHeartbeatInterval(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.heartbeat = d
}

// Connections counts the open gateway websockets, ready or not.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// CloseCodes returns the close codes of the close frames bots sent; a
// connection that just dropped sent none.
func (s *Server) CloseCodes() []int { return restapi.Copy(&s.mu, &s.closeCodes) }

// Connected reports how many gateway sessions are ready.
func (s *Server) Connected() int {
	return s.countConns(func(c *gwConn) bool { return c.ready })
}

// ReadySent counts the gateway connections that were sent READY, from
// just before it goes out: a bot that has read READY is counted, one that
// only said hello or IDENTIFY is not. (Connected counts a session from
// just after, which a bot may read READY before.)
func (s *Server) ReadySent() int {
	return s.countConns(func(c *gwConn) bool { return c.readying })
}

// WaitConnected waits up to timeout for n ready gateway sessions.
func (s *Server) WaitConnected(n int, timeout time.Duration) bool {
	return testwait.Until(timeout, fmt.Sprintf("%d ready gateway sessions", n), func() (bool, any) {
		got := s.Connected()
		return got >= n, got
	}, testwait.WithChange(s.changes)) == nil
}

// countConns counts the gateway connections that are as is says.
func (s *Server) countConns(is func(*gwConn) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if is(c) {
			n++
		}
	}
	return n
}

// readAuthed decodes a frame's data into v and checks the bot token it
// carries (token points into v); a frame that fails either closes the
// connection with Discord's code, and readAuthed is false.
func (s *Server) readAuthed(c *gwConn, data json.RawMessage, v any, token *string) bool {
	if json.Unmarshal(data, v) != nil {
		c.closeWith(4002, "Error while decoding payload.")
		return false
	}
	if !s.validToken(*token) {
		c.closeWith(4004, "Authentication failed.")
		return false
	}
	return true
}
