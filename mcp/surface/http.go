package surface

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/jarvisbot/jarvisbot"
)

// Path is where Handler serves MCP.
const Path = "/mcp"

// refusedKey is the one answer to a missing, unknown or revoked key: the
// same words for each, so that a guesser learns nothing.
const refusedKey = "jarvisbot refuses this request: it needs a valid app key in the header Authorization: Bearer KEY (the owner prints one with: jarvisbot apps add NAME)\n"

// Handler serves MCP over streamable HTTP at Path. Every request, whatever
// its method and session, needs Authorization: Bearer KEY, checked with
// Keys on each one, so a revoked key stops at its next request. Call
// Shutdown when the listener stops.
func (s *Server) Handler() http.Handler { return s.httpHandler }

// Shutdown closes the apps' open streams and stops the sweeper of idle
// sessions' state; a surface no app called has neither. Requests after it
// are refused (503).
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	bt := s.bt
	s.mu.Unlock()
	if bt == nil {
		return nil // no app called: nothing was built
	}
	if err := bt.http.Shutdown(ctx); err != nil {
		return fmt.Errorf("mcp surface: ending the apps' sessions: %w", err)
	}
	return nil
}

// handleHTTP is the handler before the transport: the key check, the
// bound on a body, then the transport, built at the first request that
// gets that far.
func (s *Server) handleHTTP() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, s.authenticate(limitBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bt := s.built()
		if bt == nil {
			http.Error(w, "jarvisbot is stopping; try again once it runs\n", http.StatusServiceUnavailable)
			return
		}
		bt.http.ServeHTTP(w, r)
	}))))
	return mux
}

// transport builds the streamable HTTP transport of ms.
func (s *Server) transport(ms *server.MCPServer) *server.StreamableHTTPServer {
	return server.NewStreamableHTTPServer(ms,
		server.WithEndpointPath(Path),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if c, ok := CallerFromContext(r.Context()); ok {
				return ContextWithCaller(ctx, c)
			}
			return ctx
		}),
		server.WithDisableLocalhostProtection(s.opt.AllowProxyHost),
		// Apps seldom end their sessions: drop the per-session state of
		// those idle this long.
		server.WithSessionIdleTTL(s.opt.SessionIdle),
		server.WithStreamableHTTPLogger(s.log),
	)
}

// maxBody bounds a request's body: mcp-go reads it whole, and an import's
// data is the largest thing an app sends.
const maxBody = 8 << 20

func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate lets a request through to next only with a key Keys
// accepts, carrying its Caller in the request's context.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			s.log.Info("mcp request without a key refused", "remote", r.RemoteAddr)
			unauthorized(w)
			return
		}
		c, err := s.keys.Check(r.Context(), key)
		if err == nil && c.App == "" {
			err = jarvisbot.Errorf(jarvisbot.EINTERNAL, "the key store answered with no app name")
		}
		if err != nil {
			switch jarvisbot.ErrorCode(err) {
			case jarvisbot.EFORBIDDEN, jarvisbot.ENOTFOUND, jarvisbot.EINVALID:
				s.log.Info("mcp request with a refused key", "remote", r.RemoteAddr)
				unauthorized(w)
			case jarvisbot.EUNAVAILABLE:
				wait := s.opt.RetryAfter
				var ra RetryAfterError
				if errors.As(err, &ra) && ra.RetryAfter() > 0 {
					wait = ra.RetryAfter()
				}
				w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
				http.Error(w, err.Error(), http.StatusTooManyRequests)
			default:
				s.log.Error("mcp key check failed", "err", err)
				http.Error(w, "jarvisbot could not check the app key; try again, and if it persists the owner will find why in jarvisbot's log", http.StatusServiceUnavailable)
			}
			return
		}
		next.ServeHTTP(w, r.WithContext(ContextWithCaller(r.Context(), c)))
	})
}

// bearer returns the key of an Authorization header of the Bearer scheme.
func bearer(h string) (string, bool) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	key = strings.TrimSpace(key)
	return key, key != ""
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="jarvisbot"`)
	http.Error(w, refusedKey, http.StatusUnauthorized)
}
