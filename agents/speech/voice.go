// Package voice turns voice notes into text and answers into voice notes
// (V1), over OpenAI-compatible audio endpoints: OpenAI itself, a local
// whisper or speech server, any server that speaks the same API.
//
// A Transcriber posts a note's bytes to {base}/audio/transcriptions and
// returns the words; a Speaker posts text to {base}/audio/speech with
// response_format "opus" and returns OGG/Opus, checked by oggopus before
// anyone sends it, since that is the only thing Telegram plays as a voice
// note. Both are plain net/http calls through llm's retrying client with
// one retry, so a dead endpoint fails fast, and both word their errors for
// the owner: which setting to change, never the key itself.
package speech

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/llm"
)

// Endpoint is one OpenAI-compatible audio endpoint and the names of the
// settings behind it, which errors tell the owner to check.
type Endpoint struct {
	BaseURL string // e.g. https://api.openai.com/v1, http://localhost:8000/v1
	APIKey  string // "" for a server that needs none
	Model   string
	// HTTPClient carries the calls; nil = a client of its own. Its
	// Transport is wrapped, never changed.
	HTTPClient *http.Client
	// Timeout bounds one call, retry included; 0 = DefaultTimeout.
	Timeout time.Duration
	// URLSetting names where BaseURL was set, e.g. "transcription.base_url
	// (JARVIS_TRANSCRIPTION_BASE_URL)"; "" = the package's default for the
	// endpoint's kind.
	URLSetting string
	// KeyName is the keyring name (or environment variable) of APIKey, e.g.
	// JARVIS_TRANSCRIPTION_API_KEY; "" = the package's default.
	KeyName string
}

// DefaultTimeout bounds one call when Endpoint.Timeout is 0: long enough
// for a local CPU whisper on a minute of speech, short enough that a note
// is not left waiting on a hung server.
const DefaultTimeout = 2 * time.Minute

// The settings' names as the config documents them, for errors.
const (
	transcriptionURLSetting = "transcription.base_url (JARVIS_TRANSCRIPTION_BASE_URL)"
	transcriptionKey        = "JARVIS_TRANSCRIPTION_API_KEY"
	speechURLSetting        = "voice.base_url (JARVIS_VOICE_BASE_URL; unset, transcription.base_url)"
)

// client is what both kinds share: where and how calls are sent, and how
// to word a failure.
type client struct {
	what     string // "the transcription endpoint", "the speech endpoint"
	url      string // BaseURL as set, without a final slash, for calls
	base     string // BaseURL without user information or query, for errors
	setting  string
	keyName  string
	hasKey   bool
	key      string // sent as the bearer; scrubbed from any text that leaves the package
	timeout  time.Duration
	hc       *http.Client
	maxReply int64
}

func newClient(e Endpoint, what, urlSetting, keyName string, maxReply int64) (client, error) {
	if e.URLSetting != "" {
		urlSetting = e.URLSetting
	}
	if e.KeyName != "" {
		keyName = e.KeyName
	}
	u, err := url.Parse(e.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return client{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s's address %q is not an http(s) URL: set %s, e.g. http://localhost:8000/v1", what, shownURL(e.BaseURL), urlSetting)
	}
	if e.Model == "" {
		return client{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s at %s has no model set", what, shownURL(e.BaseURL))
	}
	hc := http.Client{}
	if e.HTTPClient != nil {
		hc = *e.HTTPClient
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = limitTransport{next: next, max: maxReply}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return client{
		what: what, url: strings.TrimSuffix(e.BaseURL, "/"), base: shownURL(e.BaseURL), setting: urlSetting, keyName: keyName,
		hasKey: e.APIKey != "", key: e.APIKey, timeout: timeout, maxReply: maxReply,
		hc: llm.NewHTTPClient(&hc, 1, nil),
	}, nil
}

// post sends body of contentType to {base}/path with the key, if one is
// set (none other: the model's key never goes to a speech server that was
// given none), and returns a 2xx answer; ctx bounds the call.
func (c client) post(ctx context.Context, path, contentType string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	return llm.Send(c.hc, req)
}

// fail words err from a call for the owner; ctx is the caller's, without
// the call's own deadline.
func (c client) fail(ctx context.Context, err error) error {
	var api *llm.StatusError
	switch {
	case errors.As(err, &api):
		return c.refused(api)
	case ctx.Err() != nil:
		return ctx.Err() // the caller's own cancel or deadline
	case errors.Is(err, context.DeadlineExceeded):
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s at %s did not answer within %s: check that it runs and is not overloaded, then try again", c.what, c.base, c.timeout)
	}
	var big *tooLarge
	if errors.As(err, &big) {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s at %s answered more than %d bytes, more than any answer to it should be: check %s", c.what, c.base, c.maxReply, c.setting)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s at %s cannot be reached (%s): check %s and that the server runs", c.what, c.base, c.scrub(cause(err)), c.setting)
}

// refused words an HTTP error status.
func (c client) refused(e *llm.StatusError) error {
	status := fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	msg := c.serverMessage(e)
	said := ""
	if msg != "" {
		said = ": " + msg
	}
	switch code := e.StatusCode; {
	case code == http.StatusUnauthorized && !c.hasKey:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s at %s wants an API key and none is set (%s): store it with `jarvisbot secrets set %s`", c.what, c.base, status, c.keyName)
	case code == http.StatusUnauthorized:
		// The server's words are left out: OpenAI's repeat part of the key.
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s at %s refused the API key in %s (%s): store the right one with `jarvisbot secrets set %s`", c.what, c.base, c.keyName, status, c.keyName)
	case code == http.StatusForbidden:
		return jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "%s at %s does not let the key in %s do this (%s%s)", c.what, c.base, c.keyName, status, said)
	case code == http.StatusNotFound:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s at %s has no such route or model (%s%s): check %s (it usually ends in /v1) and the model", c.what, c.base, status, said, c.setting)
	case code == http.StatusRequestEntityTooLarge:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s at %s takes nothing this large (%s%s): send a shorter one", c.what, c.base, status, said)
	case code == http.StatusTooManyRequests:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s at %s is busy or over its quota (%s%s): try again later", c.what, c.base, status, said)
	case code >= 500:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s at %s failed (%s%s): try again later", c.what, c.base, status, said)
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "%s at %s refused the request (%s%s)", c.what, c.base, status, said)
}

// serverMessage is the server's own explanation (OpenAI's error.message,
// else the start of a plain body, a local server's), without the key.
func (c client) serverMessage(e *llm.StatusError) string {
	return c.scrub(e.Message)
}

// scrub removes the key from text that came from outside.
func (c client) scrub(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[key]")
}

// cause is the innermost text of a transport error: "connection refused",
// not the whole "Post "…": dial tcp …" chain.
func cause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// shownURL is a base URL as errors show it: without user information,
// query or fragment, where a secret could hide.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unreadable URL)"
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String()
}

// limitTransport ends every answer body after max bytes, with an error:
// answers are read whole, and a broken or hostile server must not cost
// the process its memory.
type limitTransport struct {
	next http.RoundTripper
	max  int64
}

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(r)
	if err != nil || res.Body == nil {
		return res, err
	}
	res.Body = &limitedBody{rc: res.Body, left: t.max, max: t.max}
	return res, nil
}

type tooLarge struct{ max int64 }

func (e *tooLarge) Error() string { return fmt.Sprintf("the answer is larger than %d bytes", e.max) }

type limitedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, &tooLarge{max: b.max}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
