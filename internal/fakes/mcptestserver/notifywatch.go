package main

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// On legacy streamable HTTP, mcp-go delivers a notification raised during a
// request on that request's own response, upgraded to SSE. Its forwarder
// goroutine can take the notification off the session's channel and then
// lose the race for the response lock to the finished handler, which closes
// the stream first and drops it: without help, a tight loop of add_tool
// calls lost most of their list_changed notifications. notifyWatch lets add_tool hold its
// response until the notification has actually been written.
//
// Only the test server works around this; a client that must see every
// list_changed from a legacy mcp-go server should keep a GET stream open
// (transport.WithContinuousListening) or re-list tools after calls.

// listChangedWait bounds that hold for the cases where the notification
// legitimately goes elsewhere (a GET stream of the same session).
const listChangedWait = 300 * time.Millisecond

var listChangedBytes = []byte(mcp.MethodNotificationToolsListChanged)

type notifyWatchKey struct{}

// notifyWatch belongs to one HTTP request: listChanged is closed once a
// tools/list_changed notification was written to its response.
type notifyWatch struct {
	once        sync.Once
	listChanged chan struct{}
}

// watchNotifications wraps h so every request's context carries a
// notifyWatch fed by its response writer. mcp-go passes the request context
// down to tool handlers.
func watchNotifications(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		watch := &notifyWatch{listChanged: make(chan struct{})}
		ctx := context.WithValue(r.Context(), notifyWatchKey{}, watch)
		h.ServeHTTP(&watchedWriter{ResponseWriter: w, watch: watch}, r.WithContext(ctx))
	})
}

// awaitListChanged returns once this request's response carried the
// list_changed notification, when it never will, or after listChangedWait.
func awaitListChanged(ctx context.Context) {
	watch, _ := ctx.Value(notifyWatchKey{}).(*notifyWatch)
	if watch == nil || server.IsModernRequest(ctx) {
		return // stdio, SSE, or a 2026-07-28 listen stream: delivery is reliable
	}
	// Only a session registered by initialize receives broadcasts; an
	// ephemeral one (stateless request) never will.
	if session := server.ClientSessionFromContext(ctx); session == nil || !session.Initialized() {
		return
	}
	timer := time.NewTimer(listChangedWait)
	defer timer.Stop()
	select {
	case <-watch.listChanged:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// watchedWriter is an http.ResponseWriter that reports list_changed writes
// and still streams (Flush) as mcp-go requires for SSE upgrades.
type watchedWriter struct {
	http.ResponseWriter
	watch *notifyWatch
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	// mcp-go writes each SSE event with a single Write.
	if bytes.Contains(p[:n], listChangedBytes) {
		w.watch.once.Do(func() { close(w.watch.listChanged) })
	}
	return n, err
}

func (w *watchedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (write deadlines).
func (w *watchedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
