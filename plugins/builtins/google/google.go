// Package google is the built-in Google plugins' tools (SPEC P6): Google
// Calendar (calendar.go), Gmail (gmail.go) and Google Drive (drive.go),
// over Google's official Go clients (google.golang.org/api). The HTTP
// client they are given carries the owner's sign-in (plugins/signin) and
// retries busy answers (internal/retry); the endpoint can be moved, so
// tests run the real client libraries against internal/fakes/fakegoogle.
package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

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

// clientOptions are the options of one API's service; path is the API's
// base below Endpoint, such as "calendar/v3/".
func (o Options) clientOptions(path string) []option.ClientOption {
	opts := []option.ClientOption{option.WithHTTPClient(o.HTTPClient)}
	if o.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(strings.TrimSuffix(o.Endpoint, "/")+"/"+path))
	}
	return opts
}

// apiError words what Google answered for the model and keeps a code the
// runtime can act on. doing says what the tool tried ("list events").
func apiError(err error, doing string) error {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		msg := ge.Message
		if msg == "" {
			msg = http.StatusText(ge.Code)
		}
		// Google's answer stays the cause, so a caller can still read its
		// status (a 401 means the sign-in needs renewing).
		say := func(code jarvisbot.Code, format string, args ...any) error {
			return &jarvisbot.Error{Code: code, Message: doing + ": " + fmt.Sprintf(format, args...), Err: err}
		}
		switch ge.Code {
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
		return say(jarvisbot.EUNAVAILABLE, "Google answered %d: %s", ge.Code, msg)
	}
	code := jarvisbot.ErrorCode(err)
	if code == jarvisbot.EINTERNAL && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		code = jarvisbot.EUNAVAILABLE // the network or the sign-in, not a bug of ours
	}
	return jarvisbot.Errorf(code, "%s: %w", doing, err)
}
