package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// A response is what an engine brought back for one address: the final
// URL after redirects, the status, the media type and as much of the body
// as the size cap let through.
type response struct {
	url         *url.URL
	status      int
	statusText  string
	contentType string // the Content-Type header as sent, or sniffed when absent
	body        []byte
	cut         bool  // the body went on past MaxBytes
	size        int64 // the body's size when known (Content-Length or counted), else -1
	rendered    bool  // the body is the DOM after scripts ran (Chromium)
}

// mediaType is the response's media type in lower case, without
// parameters.
func (r *response) mediaType() string {
	mt, _, err := mime.ParseMediaType(r.contentType)
	if err != nil {
		mt, _, _ = strings.Cut(r.contentType, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// newClient is the Go engine's HTTP client: every connection goes through
// the guard, no proxy from the environment (a proxy would connect on the
// browser's behalf to addresses the guard never sees), and every redirect
// is checked and counted.
func newClient(g *guard, o Options) *http.Client {
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          8,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: o.Timeout,
	}
	return &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			h, _ := req.Context().Value(hopsKey{}).(*hops)
			if h == nil {
				h = &hops{}
			}
			if len(via) > o.MaxRedirects {
				h.reported = true
				return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s redirected more than %d times: the browser stopped following it", clipURL(via[0].URL.String()), o.MaxRedirects)
			}
			if err := g.checkURL(req.URL); err != nil {
				h.reported = true
				return redirectRefused(via[len(via)-1].URL, req.URL, err)
			}
			h.from, h.to = via[len(via)-1].URL, req.URL
			return nil
		},
	}
}

// hops is the last redirect a request followed, so that a refusal at
// connect time (a name that resolved to a private address) can say it came
// from a redirect. It travels in the request's context: the client is
// shared by concurrent calls.
type hops struct {
	from, to *url.URL
	reported bool // CheckRedirect's error already says which hop failed
}

type hopsKey struct{}

// redirectRefused says which hop of a redirect chain was refused, keeping
// the refusal's code.
func redirectRefused(from, to *url.URL, err error) error {
	return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s redirected to %s, which was refused: %w", clipURL(from.String()), clipURL(to.String()), err)
}

// sniffLen is how much of a body http.DetectContentType looks at.
const sniffLen = 512

// get fetches u with the Go engine: at most MaxBytes of the body are read,
// and only for kinds of content the browser shows (for a PDF or an image
// it only needs the size).
func (b *Browser) get(ctx context.Context, u *url.URL) (*response, error) {
	h := &hops{}
	ctx = context.WithValue(ctx, hopsKey{}, h)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "cannot request %s: %w", clipURL(u.String()), err)
	}
	req.Header.Set("User-Agent", b.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5")
	resp, err := b.client.Do(req)
	if err != nil {
		err = b.fetchError(ctx, u, err)
		if code := jarvisbot.ErrorCode(err); h.to != nil && !h.reported && (code == jarvisbot.EFORBIDDEN || code == jarvisbot.EINVALID) {
			err = redirectRefused(h.from, h.to, err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	r := &response{
		url:         resp.Request.URL,
		status:      resp.StatusCode,
		statusText:  http.StatusText(resp.StatusCode),
		contentType: resp.Header.Get("Content-Type"),
		size:        resp.ContentLength,
	}
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(resp.Body, head)
	head = head[:n]
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, b.fetchError(ctx, r.url, err)
	}
	if mt := r.mediaType(); mt == "" || mt == "application/octet-stream" {
		r.contentType = http.DetectContentType(head)
	}
	if kindOf(r.mediaType()) == kindBinary {
		// The model is told what it is and how large; the bytes are of no
		// use to it, so they are counted only when the server did not say.
		if r.size < 0 {
			rest, err := io.Copy(io.Discard, io.LimitReader(resp.Body, b.opts.MaxBytes-int64(n)+1))
			if err != nil {
				return nil, b.fetchError(ctx, r.url, err)
			}
			r.size = int64(n) + rest
			r.cut = r.size > b.opts.MaxBytes
		}
		return r, nil
	}
	rest, err := io.ReadAll(io.LimitReader(resp.Body, b.opts.MaxBytes-int64(n)+1))
	if err != nil {
		return nil, b.fetchError(ctx, r.url, err)
	}
	r.body = append(head, rest...)
	if int64(len(r.body)) > b.opts.MaxBytes {
		r.body = r.body[:b.opts.MaxBytes]
		r.cut = true
	}
	return r, nil
}

// fetchError turns a failed request into an error for the model: a
// refusal keeps its own words (the guard's, or CheckRedirect's), a timeout
// says how long the browser waited, anything else is the network's.
func (b *Browser) fetchError(ctx context.Context, u *url.URL, err error) error {
	var je *jarvisbot.Error
	if errors.As(err, &je) {
		return je
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return ctx.Err()
		}
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s did not answer within %s: the site is slow or down; try again later or another page", clipURL(u.String()), b.opts.Timeout)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot fetch %s: %w", clipURL(u.String()), err)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// kind is how the browser shows a media type.
type kind int

const (
	kindHTML   kind = iota
	kindText        // shown as it is
	kindBinary      // described, not shown
)

func kindOf(mt string) kind {
	switch {
	case mt == "text/html", mt == "application/xhtml+xml":
		return kindHTML
	case strings.HasPrefix(mt, "text/"),
		mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/javascript", mt == "application/x-ndjson", mt == "application/yaml":
		return kindText
	}
	return kindBinary
}

// describe names a kind of file the browser does not show, for a person.
func describe(mt string) string {
	switch {
	case mt == "application/pdf":
		return "a PDF document"
	case strings.HasPrefix(mt, "image/"):
		return fmt.Sprintf("an image (%s)", mt)
	case strings.HasPrefix(mt, "audio/"):
		return fmt.Sprintf("an audio file (%s)", mt)
	case strings.HasPrefix(mt, "video/"):
		return fmt.Sprintf("a video (%s)", mt)
	case mt == "application/zip", mt == "application/gzip", mt == "application/x-gzip", mt == "application/x-tar", mt == "application/x-7z-compressed", mt == "application/vnd.rar":
		return fmt.Sprintf("an archive (%s)", mt)
	case mt == "":
		return "a file of unknown type"
	}
	return fmt.Sprintf("a file of type %s", mt)
}
