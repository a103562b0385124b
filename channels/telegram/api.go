package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
)

const (
	callTimeout   = 30 * time.Second // one request other than a long poll
	retries       = 3                // after the first try, on 429 and 5xx
	maxRetryAfter = time.Minute      // a longer flood wait fails at once: the caller keeps the message
)

// apiError is a failed Bot API call, with the token taken out: the library
// puts the token in every URL, and net/http quotes the URL in its errors,
// so no error of the library leaves this package as it is.
type apiError struct {
	method     string
	status     int // HTTP status; 0 when no answer came
	code       int // the API's error_code
	retryAfter int // seconds, from parameters.retry_after
	desc       string
	cause      error // context.Canceled or DeadlineExceeded, the only causes kept
}

func (e *apiError) Error() string {
	switch {
	case e.code != 0:
		return fmt.Sprintf("telegram %s: %d %s", e.method, e.code, e.desc)
	case e.status != 0:
		return fmt.Sprintf("telegram %s: HTTP %d: %s", e.method, e.status, e.desc)
	}
	return fmt.Sprintf("telegram %s: %s", e.method, e.desc)
}

func (e *apiError) Unwrap() error { return e.cause }

// httpCode is the failure's status: the API's error_code, else HTTP's.
func (e *apiError) httpCode() int {
	if e.code != 0 {
		return e.code
	}
	return e.status
}

func (e *apiError) retryable() bool {
	c := e.httpCode()
	return c == http.StatusTooManyRequests || c >= 500
}

// appCode maps a failure to the application's codes.
func appCode(err error) jarvisbot.Code {
	var e *apiError
	if !errors.As(err, &e) {
		return jarvisbot.ErrorCode(err)
	}
	switch c := e.httpCode(); {
	case c == http.StatusBadRequest, c == http.StatusUnauthorized, c == http.StatusNotFound:
		return jarvisbot.EINVALID
	case c == http.StatusForbidden:
		return jarvisbot.EFORBIDDEN
	case c == http.StatusConflict:
		return jarvisbot.ECONFLICT
	case c == 0, c == http.StatusTooManyRequests, c >= 500:
		return jarvisbot.EUNAVAILABLE
	}
	return jarvisbot.EINTERNAL
}

// isAPIError reports whether err is the API's answer with that code whose
// description contains text (the API's descriptions are its only
// distinction between kinds of Bad Request).
func isAPIError(err error, code int, text string) bool {
	var e *apiError
	return errors.As(err, &e) && e.code == code && strings.Contains(strings.ToLower(e.desc), text)
}

// doer gives one request the caller's context (the library has none) and
// remembers the HTTP status, which the library ignores.
type doer struct {
	ctx    context.Context
	client *http.Client
	status int
}

func (d *doer) Do(r *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(r.WithContext(d.ctx))
	if resp != nil {
		d.status = resp.StatusCode
	}
	return resp, err
}

// request makes one call through the library. Each call runs on a copy of
// the BotAPI that carries its own doer, so calls share nothing mutable.
func (b *Bot) request(ctx context.Context, method string, c tgbotapi.Chattable, timeout time.Duration) (*tgbotapi.APIResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := &doer{ctx: ctx, client: b.client}
	api := *b.api
	api.Client = d
	resp, err := api.Request(c)
	if err != nil {
		return nil, b.apiError(ctx, method, d.status, err)
	}
	return resp, nil
}

func (b *Bot) apiError(ctx context.Context, method string, status int, err error) error {
	e := &apiError{method: method, status: status}
	var te *tgbotapi.Error
	switch {
	case errors.As(err, &te):
		e.code, e.desc, e.retryAfter = te.Code, te.Message, te.RetryAfter
		if e.code == 0 && status >= 400 {
			e.code = status // the library leaves error_code out of an upload's answer
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e.cause = ctx.Err()
		if e.cause == nil {
			e.cause = context.DeadlineExceeded // the client's own timeout
		}
		e.desc = "no answer: " + e.cause.Error()
	case status != 0:
		e.desc = "the answer is not the Bot API's JSON"
	default:
		e.desc = err.Error()
	}
	e.desc = scrub(e.desc, b.token)
	return e
}

// scrub takes the token out of s, in every form a URL may have given it.
func scrub(s, token string) string {
	if token == "" {
		return s
	}
	for _, form := range []string{token, url.PathEscape(token), url.QueryEscape(token)} {
		s = strings.ReplaceAll(s, form, "<token>")
	}
	return s
}

// call makes a request and retries it on 429 (after retry_after) and 5xx
// (after RetryDelay, doubling), up to three times.
func (b *Bot) call(ctx context.Context, method string, c tgbotapi.Chattable) (*tgbotapi.APIResponse, error) {
	var resp *tgbotapi.APIResponse
	err := b.retrying(ctx, method, func() (err error) {
		resp, err = b.request(ctx, method, c, callTimeout)
		return err
	})
	return resp, err
}

// retrying runs try, and again while it fails with a retryable apiError:
// a 429 after retry_after, a 5xx after RetryDelay, doubling, up to three
// times. Any other error ends it at once.
func (b *Bot) retrying(ctx context.Context, method string, try func() error) error {
	for attempt := 0; ; attempt++ {
		err := try()
		var e *apiError
		if err == nil || attempt == retries || !errors.As(err, &e) || !e.retryable() {
			return err
		}
		wait := b.retryDelay << attempt
		if e.retryAfter > 0 {
			wait = time.Duration(e.retryAfter) * time.Second
			if wait > maxRetryAfter {
				return err
			}
		}
		b.log.Warn("telegram: request failed, retrying", "method", method, "err", err, "retry_in", wait)
		if !clock.Sleep(ctx, b.clock, wait) {
			return err
		}
	}
}
