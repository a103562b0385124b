package retry

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// DefaultAttempts is how many times Transport sends a request at most.
const DefaultAttempts = 4

// maxRetryAfter bounds a server's Retry-After: a turn is not held for
// minutes by one busy API; the call fails with the server's answer instead.
const maxRetryAfter = 30 * time.Second

// Transport retries what a web API answers when it is busy or briefly
// down: 429 and 503 for every method (the request was not processed),
// and also 500, 502 and 504 for GET and HEAD, which change nothing when
// repeated. A POST that failed with a 500 may have been done, so sending
// mail or creating an event is never repeated on one. Waits follow the
// server's Retry-After when it gives one (capped), else Policy's doubling
// schedule, on Clock, so tests move time instead of sleeping.
type Transport struct {
	Next     http.RoundTripper // nil: http.DefaultTransport
	Clock    clock.Clock       // nil: the wall clock
	Policy   Policy            // zero: 500ms doubling up to 8s
	Attempts int               // most sends per request; 0: DefaultAttempts
}

// RoundTrip sends r, and again while the answer says to retry.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	attempts := t.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	pol := t.Policy
	if pol.Min <= 0 {
		pol = Policy{Min: 500 * time.Millisecond, Max: 8 * time.Second}
	}
	// A body is sent again from a copy; the standard library's requests
	// carry GetBody, others are read once here.
	getBody := r.GetBody
	if r.Body != nil && r.Body != http.NoBody && getBody == nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		getBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		r = r.Clone(r.Context())
		r.Body, _ = getBody() // a bytes reader cannot fail
		r.GetBody = getBody   // so the transports below may send it again too
	}
	bo := New(t.Clock, pol)
	for i := 1; ; i++ {
		resp, err := next.RoundTrip(r)
		if err != nil || i == attempts || !retryable(r.Method, resp.StatusCode) {
			return resp, err
		}
		wait, ok := retryAfter(resp.Header.Get("Retry-After"), t.clock())
		if !ok {
			wait = bo.Next()
		}
		if wait > maxRetryAfter {
			return resp, nil
		}
		// The answer is dropped for the next one: its body is drained so
		// the connection is reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if wait > 0 && !clock.Sleep(r.Context(), t.clock(), wait) {
			return nil, r.Context().Err()
		}
		if getBody != nil {
			body, err := getBody()
			if err != nil {
				return nil, err
			}
			r = r.Clone(r.Context())
			r.Body = body
		}
	}
}

func (t *Transport) clock() clock.Clock {
	if t.Clock == nil {
		return clock.Real{}
	}
	return t.Clock
}

// retryable reports whether an answer with status to a request of method
// may be sent again.
func retryable(method string, status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return method == http.MethodGet || method == http.MethodHead
	}
	return false
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, c clock.Clock) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(c.Now()), 0), true
	}
	return 0, false
}
