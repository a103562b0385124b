// Package google is the built-in Google plugins' tools (SPEC P6): Google
// Calendar (calendar.go), Gmail (gmail.go) and Google Drive (drive.go).
// Each tool turns its arguments into one or a few calls of Google's REST
// APIs, declared as small typed request and answer structs beside the
// tools (calendar_api.go, gmail_api.go, drive_api.go) and sent by one
// helper here over the HTTP client the tools are given. That client
// carries the owner's sign-in (plugins/signin) and retries busy answers
// (internal/retry); the endpoint can be moved, so tests run the tools
// against internal/fakes/fakegoogle. Google's generated Go clients are not
// used: they would bring gRPC, protobuf and OpenTelemetry into the
// always-on binary for a dozen JSON calls.
package google

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// The plugins' names in the store.
const (
	Calendar = "google-calendar"
	Gmail    = "gmail"
	Drive    = "google-drive"
)

// Options is how the tools reach Google and whom they serve.
type Options struct {
	// HTTPClient sends every request; it carries the sign-in.
	HTTPClient *http.Client
	// Endpoint is the root the APIs hang below ("" for Google's own), such
	// as a fake's http://127.0.0.1:PORT/: calendar/v3/, gmail/v1/,
	// drive/v3/ and upload/drive/v3/ are below it.
	Endpoint string
	// Location is the owner's time zone: times are read and shown in it.
	Location *time.Location
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (o Options) loc() *time.Location {
	if o.Location == nil {
		return time.Local
	}
	return o.Location
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now().In(o.loc())
	}
	return o.Now().In(o.loc())
}

// Google's own bases of the APIs, as its Go client libraries have them:
// Gmail has a host of its own, Drive's uploads a path of their own.
const (
	calendarBase    = "https://www.googleapis.com/calendar/v3/"
	gmailBase       = "https://gmail.googleapis.com/gmail/v1/"
	driveBase       = "https://www.googleapis.com/drive/v3/"
	driveUploadBase = "https://www.googleapis.com/upload/drive/v3/"
)

// api sends requests to one of Google's REST APIs.
type api struct {
	client *http.Client
	// base is the URL the API's paths are relative to, ending in "/".
	base string
}

// api is the API whose base is path below Endpoint (such as
// "calendar/v3/"), or def when Endpoint is Google's own.
func (o Options) api(path, def string) api {
	base := def
	if o.Endpoint != "" {
		base = strings.TrimSuffix(o.Endpoint, "/") + "/" + path
	}
	return api{client: o.HTTPClient, base: base}
}

// pathEscape escapes one segment of a path (a calendar, event, message or
// file id) the way Google's clients do: everything but letters, digits
// and -._~ is percent-encoded, an address's @ too.
func pathEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// do sends a JSON request (in, nil for none) to path below the API's base
// with the query q and reads the JSON answer into out (nil to drop it).
func (a api) do(ctx context.Context, method, path string, q url.Values, in, out any) error {
	if in == nil {
		return a.exchange(ctx, method, path, q, "", nil, out)
	}
	body, err := encodeJSON(in)
	if err != nil {
		return err
	}
	return a.exchange(ctx, method, path, q, "application/json", body, out)
}

// encodeJSON is v as a request body. It uses an Encoder, as Google's
// clients do, for the same bytes on the wire (a final newline, HTML
// characters escaped).
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "encode the request to Google: %w", err)
	}
	return buf.Bytes(), nil
}

// exchange sends body (nil for none) of contentType and reads the JSON
// answer into out (nil to drop it).
func (a api) exchange(ctx context.Context, method, path string, q url.Values, contentType string, body []byte, out any) error {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body) // which the retrying transport can send again
	}
	resp, err := a.send(ctx, method, path, q, contentType, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("read Google's answer to %s %s: %w", method, path, err)
	}
	return nil
}

// send sends a request and returns Google's answer when it is a success,
// its body for the caller to read and close; a failure is an *APIError.
// The answer is JSON (alt=json) unless q asks otherwise (alt=media).
func (a api) send(ctx context.Context, method, path string, q url.Values, contentType string, body io.Reader) (*http.Response, error) {
	if q == nil {
		q = url.Values{}
	}
	if !q.Has("alt") {
		q.Set("alt", "json")
	}
	q.Set("prettyPrint", "false")
	req, err := http.NewRequestWithContext(ctx, method, a.base+path+"?"+q.Encode(), body)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "build the request to Google: %w", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	client := a.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // clearer than the URL error wrapped around it
		}
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, readAPIError(resp)
}

// APIError is Google's answer to a request it did not carry out. Callers
// read Status: 401 means the sign-in needs renewing.
type APIError struct {
	// Status is the HTTP status Google answered.
	Status int
	// Message is Google's explanation, "" when its answer had none.
	Message string
	// Reason is the first of Google's reason codes, such as notFound or
	// rateLimitExceeded, "" when it gave none.
	Reason string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("Google answered %d", e.Status)
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// errorBody is the JSON Google sends with a failure.
type errorBody struct {
	Error *struct {
		Message string `json:"message"`
		Errors  []struct {
			Reason string `json:"reason"`
		} `json:"errors"`
	} `json:"error"`
}

// maxErrorBody bounds what is read of a failure's body: Google's run to a
// few hundred bytes; a proxy's HTML page need not be read whole.
const maxErrorBody = 64 << 10

// readAPIError reads a failed answer into an *APIError.
func readAPIError(resp *http.Response) error {
	e := &APIError{Status: resp.StatusCode}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // a cut body still has its status
	var b errorBody
	if len(raw) > 0 && raw[0] == '[' { // some of Google's front ends wrap it in an array
		var bs []errorBody
		if json.Unmarshal(raw, &bs) == nil && len(bs) > 0 {
			b = bs[0]
		}
	} else {
		_ = json.Unmarshal(raw, &b) // not JSON: the status says enough
	}
	if b.Error != nil {
		e.Message = b.Error.Message
		if len(b.Error.Errors) > 0 {
			e.Reason = b.Error.Errors[0].Reason
		}
	}
	return e
}

// apiError words what Google answered for the model and keeps a code the
// runtime can act on. doing says what the tool tried ("list events").
func apiError(err error, doing string) error {
	var ge *APIError
	if errors.As(err, &ge) {
		msg := ge.Message
		if msg == "" {
			msg = http.StatusText(ge.Status)
		}
		// Google's answer stays the cause, so a caller can still read its
		// status (a 401 means the sign-in needs renewing).
		say := func(code jarvisbot.Code, format string, args ...any) error {
			return &jarvisbot.Error{Code: code, Message: doing + ": " + fmt.Sprintf(format, args...), Err: err}
		}
		switch ge.Status {
		case http.StatusBadRequest:
			return say(jarvisbot.EINVALID, "Google refused the request: %s", msg)
		case http.StatusUnauthorized:
			return say(jarvisbot.EUNAVAILABLE, "Google did not accept the sign-in: %s; the owner needs to sign in again", msg)
		case http.StatusNotFound, http.StatusGone:
			return say(jarvisbot.ENOTFOUND, "not found: %s", msg)
		case http.StatusForbidden:
			return say(jarvisbot.EFORBIDDEN, "Google does not allow it: %s", msg)
		case http.StatusTooManyRequests:
			return say(jarvisbot.EUNAVAILABLE, "Google is rate limiting; try again in a minute")
		}
		return say(jarvisbot.EUNAVAILABLE, "Google answered %d: %s", ge.Status, msg)
	}
	code := jarvisbot.ErrorCode(err)
	if code == jarvisbot.EINTERNAL && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		code = jarvisbot.EUNAVAILABLE // the network or the sign-in, not a bug of ours
	}
	return jarvisbot.Errorf(code, "%s: %w", doing, err)
}

// request is do for an answer of type T.
func request[T any](ctx context.Context, a api, method, path string, q url.Values, in any) (*T, error) {
	var out T
	if err := a.do(ctx, method, path, q, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
