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
	// Again decides instead of the rule above whether r is sent again
	// after it was answered with resp or failed with err (one of the two
	// is nil). nil: the rule above; Repeatable for APIs whose every call
	// can be repeated.
	Again func(r *http.Request, resp *http.Response, err error) bool
}

// Repeatable is the rule for APIs whose calls change nothing when sent
// twice, such as a model's completion or a transcription: a call is sent
// again after a failed connection, a timeout (408), a conflict (409), a
// busy answer (429) or any server error (5xx, and 529 "overloaded"),
// unless the server says not to with "x-should-retry: false", as the
// model APIs may. A cancelled or expired call is not repeated.
func Repeatable(r *http.Request, resp *http.Response, err error) bool {
	if err != nil {
		return r.Context().Err() == nil
	}
	switch resp.Header.Get("x-should-retry") {
	case "true":
		return true
	case "false":
		return false
	}
	switch code := resp.StatusCode; {
	case code == http.StatusRequestTimeout, code == http.StatusConflict, code == http.StatusTooManyRequests:
		return true
	case code >= 500:
		return true
	}
	return false
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
	again := t.Again
	if again == nil {
		again = safeAgain
	}
	bo := New(t.Clock, pol)
	for i := 1; ; i++ {
		resp, err := next.RoundTrip(r)
		if i == attempts || !again(r, resp, err) {
			return resp, err
		}
		var wait time.Duration
		ok := false
		if resp != nil {
			wait, ok = retryAfter(resp.Header.Get("Retry-After"), t.clock())
		}
		if !ok {
			wait = bo.Next()
		}
		if wait > maxRetryAfter {
			return resp, err
		}
		if resp != nil {
			// The answer is dropped for the next one: its body is drained
			// so the connection is reused.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
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

// safeAgain is the rule for any API: an answer that says the request was
// not done, or a server error to a request that changes nothing; a failed
// connection is given back at once.
func safeAgain(r *http.Request, resp *http.Response, err error) bool {
	return err == nil && retryable(r.Method, resp.StatusCode)
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
