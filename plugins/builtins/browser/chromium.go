package browser

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/jarvisbot/jarvisbot"
)

// The Chromium engine renders a page in a headless Chromium (through
// chromedp) so that text a script writes is there, then reads the rendered
// DOM like any page. Chromium resolves and connects by itself, so the
// guard cannot sit in its dialer; instead Chromium is started with a proxy
// of ours as its only way out (loopback included: "<-loopback>" takes away
// its built-in exception for it), and that proxy dials through the guard.
// Every request the page makes, redirects and scripts' requests too, is
// checked on the address it connects to. UDP, which a proxy cannot carry,
// is switched off for WebRTC.

// chromiumNames are the programs looked for on PATH, in order.
func chromiumNames() []string {
	return []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell", "headless_shell"}
}

// settleTime bounds the wait for a rendered page's network to go idle.
const settleTime = 3 * time.Second

// chromiumInstall says how to get an engine that works.
const chromiumInstall = "install Chromium (apt install chromium) or set browser.engine to go"

// chromium finds the Chromium program.
func (b *Browser) chromium() (string, error) {
	if p := b.opts.ChromiumPath; p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "browser.engine is chromium, but the Chromium program %s cannot be run (%v): %s", p, err, chromiumInstall)
		}
		return path, nil
	}
	for _, name := range chromiumNames() {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "browser.engine is chromium, but no Chromium was found (looked for %s on PATH): %s", strings.Join(chromiumNames(), ", "), chromiumInstall)
}

// render opens u in a new headless Chromium, which lives as long as the
// call (ctx carries the call's time cap), and returns the rendered HTML.
// A document that is not a web page (a PDF, an image, JSON) is fetched
// again by the Go engine, which describes or shows it.
func (b *Browser) render(ctx context.Context, u *url.URL) (*response, error) {
	exe, err := b.chromium()
	if err != nil {
		return nil, err
	}
	select {
	case b.renders <- struct{}{}:
		defer func() { <-b.renders }()
	case <-ctx.Done():
		return nil, b.chromiumError(ctx, u, ctx.Err())
	}
	px, err := startProxy(ctx, b)
	if err != nil {
		return nil, err
	}
	defer px.close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.ProxyServer("http://"+px.addr()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("blink-settings", "imagesEnabled=false"),
		chromedp.UserAgent(b.opts.UserAgent),
		chromedp.DisableGPU,
	)
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to start as root (containers).
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	w := &watch{idle: make(chan struct{})}
	tctx, cancelTab := chromedp.NewContext(actx, chromedp.WithListener(w.event))
	defer cancelTab()

	// Start the browser first, so that the blank tab's own load is over
	// before the page's is watched for.
	if err := chromedp.Do(tctx); err != nil {
		return nil, b.chromiumError(ctx, u, err)
	}
	w.start()
	resp, navErr := chromedp.Run(tctx, chromedp.NavigateResponse(u.String()))
	if navErr != nil {
		// Why the address itself failed, else a refusal on the way (a
		// redirect hop), else Chromium's own words.
		if failed := px.failedFor(u); failed != nil {
			return nil, failed
		}
		if refusal := px.refusal(); refusal != nil {
			return nil, refusal
		}
		if ctx.Err() != nil {
			return nil, b.chromiumError(ctx, u, navErr)
		}
		var le *chromedp.LoadError
		if errors.As(navErr, &le) && strings.Contains(le.ErrorText, "ERR_ABORTED") {
			// A download (a PDF, an archive) aborts the navigation: the Go
			// engine says what it is.
			return b.get(ctx, u)
		}
		return nil, b.chromiumError(ctx, u, navErr)
	}
	if n := w.redirects(); n > b.opts.MaxRedirects {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s redirected %d times, more than %d: the browser stopped following it", clipURL(u.String()), n, b.opts.MaxRedirects)
	}
	final, err := url.Parse(resp.URL)
	if err != nil || b.guard.checkURL(final) != nil {
		if refusal := px.refusal(); refusal != nil {
			return nil, refusal
		}
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "Chromium could not open %s: it ended on %s", clipURL(u.String()), clipURL(resp.URL))
	}
	if failed := px.failedFor(final); failed != nil && isRefusal(failed) {
		return nil, failed
	}
	if kindOf(strings.ToLower(resp.MimeType)) != kindHTML {
		return b.get(ctx, final)
	}
	// Scripts that fetch the page's text after the load event get a moment
	// to finish: until the network is idle, at most settleTime (a page that
	// polls for ever is read as it is then).
	settle := time.NewTimer(settleTime)
	defer settle.Stop()
	select {
	case <-w.idle:
	case <-settle.C:
	case <-ctx.Done():
		return nil, b.chromiumError(ctx, u, ctx.Err())
	}
	html, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.documentElement ? document.documentElement.outerHTML : ""`))
	if err != nil {
		return nil, b.chromiumError(ctx, u, err)
	}
	if loc, err := chromedp.Run(tctx, chromedp.Location()); err == nil {
		// A script may have moved the page on (location.href = …): the
		// proxy checked where it went; the page's address is where it is.
		if v, err := url.Parse(loc); err == nil && b.guard.checkURL(v) == nil {
			final = v
		}
	}
	r := &response{
		url:         final,
		status:      int(resp.Status),
		statusText:  resp.StatusText,
		contentType: "text/html; charset=utf-8",
		body:        []byte(html),
		size:        int64(len(html)),
		rendered:    true,
	}
	if int64(len(r.body)) > b.opts.MaxBytes {
		r.body, r.cut = r.body[:b.opts.MaxBytes], true
	}
	return r, nil
}

// chromiumError is the model's error for a failed rendering.
func (b *Browser) chromiumError(ctx context.Context, u *url.URL, err error) error {
	if ctx.Err() != nil {
		return b.fetchError(ctx, u, ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) || errors.Is(err, exec.ErrNotFound) {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "Chromium did not run (%v): %s", err, chromiumInstall)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "Chromium could not open %s: %w", clipURL(u.String()), err)
}

// watch follows the tab's events: the redirects of the page's document and
// when its network went idle.
type watch struct {
	mu       sync.Mutex
	started  bool
	loader   string // the loader of the page's document, from its "init"
	redirect int
	idle     chan struct{}
	closed   bool
}

func (w *watch) start() {
	w.mu.Lock()
	w.started = true
	w.mu.Unlock()
}

func (w *watch) redirects() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.redirect
}

// event runs on chromedp's reading goroutine: it must return at once.
func (w *watch) event(ev any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		return
	}
	switch e := ev.(type) {
	case *cdppage.EventLifecycleEvent:
		switch {
		case e.Name == "init":
			w.loader = string(e.LoaderID)
		case e.Name == "networkIdle" && string(e.LoaderID) == w.loader && !w.closed:
			w.closed = true
			close(w.idle)
		}
	case *network.EventRequestWillBeSent:
		if e.Type == network.ResourceTypeDocument && e.RedirectResponse != nil {
			w.redirect++
		}
	}
}

// proxy is Chromium's only way out: an HTTP proxy on loopback that dials
// through the guard, for one rendering. It remembers what it refused, so
// that a page that failed to load says why.
type proxy struct {
	b      *Browser
	ctx    context.Context
	cancel context.CancelFunc
	ln     net.Listener
	srv    *http.Server
	wg     sync.WaitGroup

	mu      sync.Mutex
	failed  map[string]error // what went wrong reaching each host:port, refusals first
	first   error            // the first refusal
	tunnels map[net.Conn]bool
}

func startProxy(ctx context.Context, b *Browser) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot start the browser's proxy for Chromium on loopback: %w", err)
	}
	pctx, cancel := context.WithCancel(ctx)
	p := &proxy{b: b, ctx: pctx, cancel: cancel, ln: ln, failed: map[string]error{}, tunnels: map[net.Conn]bool{}}
	p.srv = &http.Server{Handler: p, BaseContext: func(net.Listener) context.Context { return pctx }}
	p.wg.Go(func() { _ = p.srv.Serve(ln) }) // returns http.ErrServerClosed on close
	return p, nil
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// close stops the proxy and every tunnel through it, and waits for them.
func (p *proxy) close() {
	p.cancel()
	_ = p.srv.Close() // closes the listener and the connections not hijacked
	p.mu.Lock()
	for c := range p.tunnels {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// refusal is the first refusal of the rendering, or nil.
func (p *proxy) refusal() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

// failedFor is what went wrong reaching u's host and port (a refusal, a
// name that does not exist), or nil.
func (p *proxy) failedFor(u *url.URL) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed[hostPort(u.Hostname(), u.Port(), u.Scheme)]
}

// note remembers why the proxy could not reach key, and answers Chromium
// with a status that says whether it was refused.
func (p *proxy) note(w http.ResponseWriter, key string, err error) {
	refused := isRefusal(err)
	p.mu.Lock()
	if refused && p.first == nil {
		p.first = err
	}
	if prev := p.failed[key]; prev == nil || refused && !isRefusal(prev) {
		p.failed[key] = err
	}
	p.mu.Unlock()
	status := http.StatusBadGateway
	if refused {
		status = http.StatusForbidden
	}
	http.Error(w, err.Error(), status)
}

func isRefusal(err error) bool {
	code := jarvisbot.ErrorCode(err)
	return code == jarvisbot.EFORBIDDEN || code == jarvisbot.EINVALID
}

func hostPort(host, port, scheme string) string {
	if port == "" {
		port = "80"
		if scheme == "https" || scheme == "wss" {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(strings.Trim(host, "[]")), port)
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	p.forward(w, r)
}

// tunnel carries a CONNECT (HTTPS, WebSocket over TLS) to an address the
// guard allows.
func (p *proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, "CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	key := hostPort(host, port, "https")
	up, err := p.b.guard.dial(p.ctx, "tcp", r.Host)
	if err != nil {
		p.note(w, key, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		http.Error(w, "the proxy cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	if !p.track(up, down) {
		return
	}
	go func() {
		defer p.wg.Done()
		if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err == nil {
			// What Chromium sent after the CONNECT line may sit in rw's buffer.
			_, _ = io.Copy(up, rw)
		}
		p.untrack(up, down)
	}()
	go func() {
		defer p.wg.Done()
		_, _ = io.Copy(down, up)
		p.untrack(up, down)
	}()
}

// track registers a tunnel's two ends and the two goroutines that will
// copy between them, or closes the ends when the proxy is closing. Doing
// both under the lock that close takes keeps every wg.Add before close's
// wg.Wait.
func (p *proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.tunnels[c] = true
	}
	p.wg.Add(2)
	return true
}

// untrack closes a tunnel's ends; either side ending ends it.
func (p *proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
		delete(p.tunnels, c)
	}
}

// hopHeaders are the headers that belong to one connection, not to the
// request (RFC 9110 §7.6.1), which a proxy does not pass on.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward passes a plain-HTTP request on through the guarded transport,
// without following redirects (Chromium follows them, each through here).
func (p *proxy) forward(w http.ResponseWriter, r *http.Request) {
	if !r.URL.IsAbs() {
		http.Error(w, "this is a proxy: send absolute addresses", http.StatusBadRequest)
		return
	}
	key := hostPort(r.URL.Hostname(), r.URL.Port(), r.URL.Scheme)
	if err := p.b.guard.checkURL(r.URL); err != nil {
		p.note(w, key, err)
		return
	}
	out := r.Clone(p.ctx)
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.b.client.Transport.RoundTrip(out)
	if err != nil {
		var je *jarvisbot.Error
		if errors.As(err, &je) {
			p.note(w, key, je)
		} else {
			p.note(w, key, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot reach %s: %w", r.URL.Host, err))
		}
		return
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(resp.Body, p.b.opts.MaxBytes))
}
