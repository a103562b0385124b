package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/retry"
)

// StatusError is an API's refusal of a call: the HTTP status and what
// the body said about it. The model APIs and the OpenAI-compatible audio
// endpoints answer {"error": {"type": …, "message": …}}; a local server
// may answer a plain line of text instead.
type StatusError struct {
	StatusCode int
	Type       string // error.type, e.g. "overloaded_error"; "" when none was given
	// Message is error.message, else the start of a body that is not an
	// HTML page; on one line, at most 200 characters.
	Message string
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Send sends req with hc and returns the answer when its status is 2xx;
// any other is read into a *StatusError and its body closed.
func Send(hc *http.Client, req *http.Request) (*http.Response, error) {
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return res, nil
	}
	defer func() { _ = res.Body.Close() }() // read as far as it explains the status
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	return nil, statusError(res.StatusCode, res.Header.Get("Content-Type"), body)
}

func statusError(status int, contentType string, body []byte) *StatusError {
	e := &StatusError{StatusCode: status}
	var wire struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &wire) == nil && len(wire.Error) > 0 {
		var detail struct{ Type, Message string }
		if json.Unmarshal(wire.Error, &detail) == nil {
			e.Type, e.Message = detail.Type, detail.Message
		} else {
			_ = json.Unmarshal(wire.Error, &e.Message) // {"error": "…"}, as some local servers say it
		}
	} else if mt, _, _ := mime.ParseMediaType(contentType); !strings.Contains(mt, "html") {
		e.Message = string(body[:min(len(body), 300)])
	}
	e.Message = strings.Join(strings.Fields(e.Message), " ")
	if r := []rune(e.Message); len(r) > 200 {
		e.Message = string(r[:200]) + "…"
	}
	return e
}

// NewHTTPClient returns a client that sends its calls through hc (nil: a
// client of its own; hc's Transport is wrapped, never changed) and sends
// a call again up to retries times when it failed in a way that may pass:
// a failed connection, 408, 409, 429, 5xx or 529, waiting as the server's
// Retry-After says or on a doubling schedule on clk (nil: the wall
// clock). A completion or a transcription changes nothing, so sending it
// twice is harmless.
func NewHTTPClient(hc *http.Client, retries int, clk clock.Clock) *http.Client {
	return newHTTPClient(hc, retries, clk, 0)
}

// newHTTPClient is NewHTTPClient whose retries, when maxWait > 0, wait
// no longer than maxWait: an answer whose Retry-After asks for more is
// given back at once, for a chain to ask its next link instead.
func newHTTPClient(hc *http.Client, retries int, clk clock.Clock, maxWait time.Duration) *http.Client {
	c := http.Client{}
	if hc != nil {
		c = *hc
	}
	again := retry.Repeatable
	if maxWait > 0 {
		again = func(r *http.Request, resp *http.Response, err error) bool {
			return retry.Repeatable(r, resp, err) && (resp == nil || waitAsked(resp.Header.Get("Retry-After"), clk) <= maxWait)
		}
	}
	c.Transport = &retry.Transport{Next: c.Transport, Clock: clk, Attempts: max(retries, 0) + 1, Again: again}
	return &c
}

// waitAsked is how long a Retry-After value (seconds or an HTTP date)
// asks to wait; 0 when it asks nothing readable.
func waitAsked(v string, clk clock.Clock) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(s) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		if clk == nil {
			clk = clock.Real{}
		}
		return at.Sub(clk.Now())
	}
	return 0
}

// postJSON sends in as JSON to url with header and decodes a 2xx answer
// into out.
func postJSON(ctx context.Context, hc *http.Client, url string, header http.Header, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := Send(hc, req)
	if err != nil {
		return err
	}
	defer func() { _ = res.Body.Close() }() // decoded whole or failed
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	return nil
}

// schemaObject reads a tool's JSON schema as an object of raw members, so
// that each API's adapter can adjust it and marshal it again with its
// numbers and nested values as they were. An empty schema takes no
// arguments: {"type":"object"}.
func schemaObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
	}
	if m == nil {
		m = map[string]json.RawMessage{"type": json.RawMessage(`"object"`)}
	}
	return m, nil
}
