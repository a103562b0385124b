package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// The test servers listen on loopback, which the browser refuses; tests
// that load pages allow it the way an owner allows their own host.
var allowLoopback = []string{"127.0.0.1/32"}

// call runs one browser call in chat and returns its text.
func call(t *testing.T, b *Browser, chat string, args any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cp := b.Capability()
	out, err := b.Run(context.Background(), catalog.Call{Cap: &cp, Args: raw, Chat: chat})
	return out.Text, err
}

func mustCall(t *testing.T, b *Browser, chat string, args any) string {
	t.Helper()
	text, err := call(t, b, chat, args)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return text
}

// openErr opens u in chat c and returns the error it met.
func openErr(t *testing.T, b *Browser, u string) error {
	t.Helper()
	_, err := call(t, b, "c", map[string]any{"action": "open", "url": u})
	return err
}

// wantErr checks err's code and that its message holds each of words.
func wantErr(t *testing.T, err error, code jarvisbot.Code, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got := jarvisbot.ErrorCode(err); got != code {
		t.Fatalf("error code %s, want %s: %v", got, code, err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

func contains(t *testing.T, text string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("output does not hold %q:\n%s", w, text)
		}
	}
}

// site serves pages by path and counts the requests it got.
type site struct {
	*httptest.Server
	hits atomic.Int64
	ua   atomic.Value
}

func newSite(t *testing.T, pages map[string]http.HandlerFunc) *site {
	t.Helper()
	s := &site{}
	mux := http.NewServeMux()
	for path, h := range pages {
		mux.HandleFunc(path, h)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.ua.Store(r.UserAgent())
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func htmlPage(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, body)
	}
}

// article is a page like a blog post: navigation, a long article, a
// script and a footer.
const article = `<!doctype html><html><head><title>How to keep bees in a city garden | Garden Notes</title>
<script>var tracking = "SCRIPT-TEXT-NOT-SHOWN";</script><style>.x{color:red}</style></head>
<body><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="#top">Top</a> <a href="mailto:me@example.org">Mail</a></nav>
<article><h1>How to keep bees in a city garden</h1>
<p>Keeping bees on a balcony or a small city garden is easier than most people think. A single hive of calm bees needs about two square metres, water nearby and flowers within three kilometres, which every city offers in its parks, gardens and street trees.</p>
<p>Start in spring with a nucleus colony from a local beekeeper. Local bees are used to the climate and tend to be gentle. Inspect the hive every week in the first summer, and keep notes of what you see: the queen, the brood pattern and the stores of honey and pollen.</p>
<p>In the first year, do not take honey. The colony needs its stores for the winter. From the second year on, a healthy hive in a city can give fifteen kilograms of honey, often more than a hive in the countryside, because city flowers bloom from March to October. Read <a href="/varroa">our guide to varroa mites</a> and <a href="https://bees.example.net/calendar?year=2026">the beekeeping calendar</a> before you start.</p>
</article><footer><a href="/imprint">Imprint</a></footer></body></html>`

func TestOpenShowsTitleReadableTextAndLinksP6(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{"/bees": htmlPage(article)})
	b := New(Options{Allow: allowLoopback})
	text := mustCall(t, b, "chat1", map[string]any{"action": "open", "url": s.URL + "/bees"})
	contains(t, text,
		"Title: How to keep bees in a city garden",
		"URL: "+s.URL+"/bees",
		"A single hive of calm bees needs about two square metres",
		"In the first year, do not take honey.",
		"Links",
		"Home — "+s.URL+"/",
		"our guide to varroa mites — "+s.URL+"/varroa",
		"the beekeeping calendar — https://bees.example.net/calendar?year=2026",
		"Imprint — "+s.URL+"/imprint",
	)
	for _, not := range []string{"SCRIPT-TEXT-NOT-SHOWN", "color:red", "mailto:", "#top"} {
		if strings.Contains(text, not) {
			t.Errorf("output shows %q:\n%s", not, text)
		}
	}
	if ua, _ := s.ua.Load().(string); ua != DefaultUserAgent {
		t.Errorf("User-Agent %q, want %q", ua, DefaultUserAgent)
	}
}

func TestOpenClipsTextAndBoundsLinksP6(t *testing.T) {
	var page strings.Builder
	page.WriteString("<html><head><title>Long</title></head><body><article>")
	for i := range 200 {
		fmt.Fprintf(&page, "<p>Paragraph %d says something long enough to be read as the article text of this page, with words.</p>", i)
	}
	page.WriteString("</article><ul>")
	for i := range 150 {
		fmt.Fprintf(&page, `<li><a href="/p/%d">Page %d</a></li>`, i, i)
	}
	page.WriteString("</ul></body></html>")
	s := newSite(t, map[string]http.HandlerFunc{"/": htmlPage(page.String())})
	b := New(Options{Allow: allowLoopback})
	text := mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + "/", "limit": 5})
	contains(t, text, "more characters not shown", "Use find", "Links (the first 5 of 150", "5. Page 4 — ")
	if strings.Contains(text, "6. Page 5") {
		t.Errorf("limit 5 showed a sixth link:\n%s", text)
	}
	if len(text) > showText+2000 {
		t.Errorf("output is %d bytes, want about %d", len(text), showText)
	}
	// Links past the ones shown can still be followed by number.
	text = mustCall(t, b, "c", map[string]any{"action": "follow", "link": 120})
	contains(t, text, "URL: "+s.URL+"/p/119")
}

func TestFollowByNumberAndURLP6(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/bees":   htmlPage(article),
		"/varroa": htmlPage(`<html><head><title>Varroa mites</title></head><body><p>Treat the hive in August after the last honey harvest.</p><a href="/bees">back</a></body></html>`),
		"/about":  htmlPage(`<html><head><title>About us</title></head><body><p>We write about gardens.</p></body></html>`),
	})
	b := New(Options{Allow: allowLoopback})
	text := mustCall(t, b, "chat1", map[string]any{"action": "open", "url": s.URL + "/bees"})
	n := linkNumber(t, text, s.URL+"/varroa")
	text = mustCall(t, b, "chat1", map[string]any{"action": "follow", "link": n})
	contains(t, text, "Title: Varroa mites", "Treat the hive in August", "URL: "+s.URL+"/varroa")

	// A relative address is read against the last page.
	text = mustCall(t, b, "chat1", map[string]any{"action": "follow", "url": "/about"})
	contains(t, text, "Title: About us", "We write about gardens.")

	_, err := call(t, b, "chat1", map[string]any{"action": "follow", "link": 99})
	wantErr(t, err, jarvisbot.EINVALID, "link 99 is not on the last page")

	// Another chat has no page open: the last page is per chat.
	_, err = call(t, b, "chat2", map[string]any{"action": "follow", "link": 1})
	wantErr(t, err, jarvisbot.EINVALID, "no page is open in this chat")
	_, err = call(t, b, "chat2", map[string]any{"action": "find", "query": "gardens"})
	wantErr(t, err, jarvisbot.EINVALID, "no page is open in this chat")
	_, err = call(t, b, "chat1", map[string]any{"action": "follow"})
	wantErr(t, err, jarvisbot.EINVALID, `"link"`)
}

// linkNumber finds the number of the link to u in an open's output.
func linkNumber(t *testing.T, text, u string) int {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		var n int
		if _, err := fmt.Sscanf(line, "%d.", &n); err == nil && strings.HasSuffix(line, "— "+u) {
			return n
		}
	}
	t.Fatalf("no link to %s in:\n%s", u, text)
	return 0
}

func TestFindShowsMatchingPassagesP6(t *testing.T) {
	long := strings.Repeat("Filler words about nothing in particular. ", 30)
	s := newSite(t, map[string]http.HandlerFunc{
		"/bees": htmlPage(strings.Replace(article, "</article>", "<p>"+long+"The Königin (queen) is marked with a dot of paint. "+long+"</p></article>", 1)),
	})
	b := New(Options{Allow: allowLoopback})
	mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + "/bees"})

	text := mustCall(t, b, "c", map[string]any{"action": "find", "query": "HONEY stores"})
	contains(t, text, "match \"HONEY stores\"", "the stores of honey and pollen", "(paragraph ")
	// The paragraph with both words comes before those with one.
	first := strings.Index(text, "1. ")
	if !strings.Contains(text[first:strings.Index(text[first:], "\n")+first], "stores") {
		t.Errorf("the best passage is not the one with both words:\n%s", text)
	}

	// Accents and case are ignored; a long paragraph is shown around the
	// match, not whole.
	text = mustCall(t, b, "c", map[string]any{"action": "find", "query": "konigin"})
	contains(t, text, "The Königin (queen) is marked", "…")
	if len(text) > 1000 {
		t.Errorf("a passage of a long paragraph is %d bytes:\n%s", len(text), text)
	}

	text = mustCall(t, b, "c", map[string]any{"action": "find", "query": "helicopter"})
	contains(t, text, `no passage of "How to keep bees in a city garden"`, `has "helicopter"`)
}

// TestLoopbackAndPrivateRefusedP6: without browser.allow, no address off
// the public internet is reached, however it is written, and the test
// server never sees a request.
func TestLoopbackAndPrivateRefusedP6(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{"/": htmlPage(article)})
	port := s.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	b := New(Options{})
	for _, u := range []string{
		s.URL + "/",
		fmt.Sprintf("http://localhost:%d/", port), // a name: refused after DNS
		fmt.Sprintf("http://[::1]:%d/", port),
		fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port), // IPv4-mapped IPv6
		fmt.Sprintf("http://0.0.0.0:%d/", port),
		"http://10.0.0.1/",
		"http://172.16.5.4/",
		"http://192.168.1.1/admin",
		"http://100.64.0.1/",                         // CGNAT
		"http://[fd00::1]/",                          // unique local
		"http://[fe80::1]/",                          // link-local
		"http://224.0.0.1/",                          // multicast
		"http://[64:ff9b::a00:1]/",                   // NAT64 of 10.0.0.1
		fmt.Sprintf("http://2130706433:%d/", port),   // 127.0.0.1 as one number
		fmt.Sprintf("http://0x7f.1:%d/", port),       // and in hex, shortened
		fmt.Sprintf("http://017700000001:%d/", port), // and in octal
	} {
		t.Run(u, func(t *testing.T) {
			wantErr(t, openErr(t, b, u), jarvisbot.EFORBIDDEN, "refused to connect", "not a public web address", "add it to browser.allow in the config if it is yours")
		})
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the loopback server got %d requests", n)
	}
}

func TestMetadataAddressRefusedP6(t *testing.T) {
	b := New(Options{})
	b.guard.lookup = table(map[string]string{"metadata.google.internal": "169.254.169.254"})
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/iam/security-credentials/",
		"http://metadata.google.internal/computeMetadata/v1/",
		"http://[fd00:ec2::254]/latest/meta-data/",
		"http://[::ffff:169.254.169.254]/",
	} {
		wantErr(t, openErr(t, b, u), jarvisbot.EFORBIDDEN, "refused to connect")
	}
	wantErr(t, openErr(t, b, "http://169.254.169.254/"), jarvisbot.EFORBIDDEN, "the cloud metadata address")
}

// table is a lookup that resolves names from a table, as a DNS server
// the test controls would.
func table(names map[string]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		a, ok := names[host]
		if !ok {
			return nil, fmt.Errorf("no such host %s in the test's table", host)
		}
		var out []netip.Addr
		for _, s := range strings.Split(a, ",") {
			out = append(out, netip.MustParseAddr(s))
		}
		return out, nil
	}
}

// TestNameCheckedOnTheAddressItResolvesToP6: a public-looking name that
// resolves to a private address is refused at connect time, and a name the
// owner allowed loads whatever it resolves to.
func TestNameCheckedOnTheAddressItResolvesToP6(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{"/": htmlPage(article)})
	port := s.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	names := map[string]string{
		"rebound.example.com": "127.0.0.1",
		"nas.home.test":       "127.0.0.1",
		"tv.home.test":        "127.0.0.1",
		"mixed.example.com":   "10.1.2.3,127.0.0.1",
	}
	b := New(Options{Allow: []string{"nas.home.test"}})
	b.guard.lookup = table(names)
	_, err := call(t, b, "c", map[string]any{"action": "open", "url": fmt.Sprintf("http://rebound.example.com:%d/", port)})
	wantErr(t, err, jarvisbot.EFORBIDDEN, "rebound.example.com (127.0.0.1)", "loopback")
	_, err = call(t, b, "c", map[string]any{"action": "open", "url": fmt.Sprintf("http://mixed.example.com:%d/", port)})
	wantErr(t, err, jarvisbot.EFORBIDDEN, "mixed.example.com (10.1.2.3)")
	wantErr(t, openErr(t, b, fmt.Sprintf("http://tv.home.test:%d/", port)), jarvisbot.EFORBIDDEN)
	if n := s.hits.Load(); n != 0 {
		t.Fatalf("the server got %d requests from refused names", n)
	}
	text := mustCall(t, b, "c", map[string]any{"action": "open", "url": fmt.Sprintf("http://nas.home.test:%d/", port)})
	contains(t, text, "Title: How to keep bees")

	wild := New(Options{Allow: []string{"*.home.test"}})
	wild.guard.lookup = table(names)
	mustCall(t, wild, "c", map[string]any{"action": "open", "url": fmt.Sprintf("http://tv.home.test:%d/", port)})
}

// TestRedirectIntoPrivateRefusedAtTheHopP6: an allowed page that redirects
// to an address off the public internet is refused at that hop, before
// any connection to it.
func TestRedirectIntoPrivateRefusedAtTheHopP6(t *testing.T) {
	inner := newSite(t, map[string]http.HandlerFunc{"/": htmlPage(article)})
	innerPort := inner.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	targets := map[string]string{
		"metadata":  "http://169.254.169.254/latest/meta-data/",
		"private":   "http://10.0.0.1/admin",
		"loopback6": fmt.Sprintf("http://[::1]:%d/", innerPort),
		"name":      fmt.Sprintf("http://intranet.example.com:%d/", innerPort),
		"scheme":    "file:///etc/passwd",
	}
	pages := map[string]http.HandlerFunc{}
	for name, to := range targets {
		pages["/to-"+name] = func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/hop-"+name, http.StatusFound) // one allowed hop first
		}
		pages["/hop-"+name] = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", to)
			w.WriteHeader(http.StatusMovedPermanently)
		}
	}
	outer := newSite(t, pages)
	// The outer server is allowed by its address; the inner one (also on
	// loopback, other port) is reached only through names and ::1, which
	// are not allowed.
	b := New(Options{Allow: allowLoopback})
	b.guard.lookup = table(map[string]string{"intranet.example.com": "10.9.9.9"})
	for name, to := range targets {
		t.Run(name, func(t *testing.T) {
			_, err := call(t, b, "c", map[string]any{"action": "open", "url": outer.URL + "/to-" + name})
			code := jarvisbot.EFORBIDDEN
			if name == "scheme" {
				code = jarvisbot.EINVALID
			}
			wantErr(t, err, code, "redirected to "+clipURL(to), "which was refused")
		})
	}
	if n := inner.hits.Load(); n != 0 {
		t.Errorf("the private target got %d requests", n)
	}
}

func TestRedirectCountCappedP6(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/r/": func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/r/"), "%d", &n)
			if n == 0 {
				htmlPage("<title>Arrived</title><p>here</p>")(w, r)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
		},
	})
	b := New(Options{Allow: allowLoopback, MaxRedirects: 3})
	contains(t, mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + "/r/3"}), "Title: Arrived", "URL: "+s.URL+"/r/0")
	wantErr(t, openErr(t, b, s.URL+"/r/4"), jarvisbot.EUNAVAILABLE, "redirected more than 3 times")
}

func TestHugePageCutAtMaxBytesP6(t *testing.T) {
	const max = 64 << 10
	var sent atomic.Int64
	s := newSite(t, map[string]http.HandlerFunc{"/huge": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><head><title>Huge</title></head><body>")
		// Up to 64 MiB: far more than the browser reads. The write fails
		// once the browser hangs up.
		line := []byte("<p>The quick brown fox jumps over the lazy dog, again and again, paragraph after paragraph.</p>\n")
		for sent.Load() < 64<<20 {
			n, err := w.Write(line)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}})
	b := New(Options{Allow: allowLoopback, MaxBytes: max})
	text := mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + "/huge"})
	contains(t, text, "Title: Huge", "The page is larger than 64 KiB: only its first 64 KiB were read.", "The quick brown fox")
	text = mustCall(t, b, "c", map[string]any{"action": "find", "query": "lazy dog"})
	contains(t, text, "passages of")
	p := b.memory.get("c")
	if len(p.text) > max {
		t.Errorf("kept %d bytes of text from a page cut at %d", len(p.text), max)
	}
}

// TestSlowPageTimesOutP6: a server that never answers, or stops in the
// middle of the page, costs the call its time cap and an error that says
// so, not a hang.
func TestSlowPageTimesOutP6(t *testing.T) {
	release := make(chan struct{})
	s := newSite(t, map[string]http.HandlerFunc{
		"/never": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
		"/stalls": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><head><title>Stalls</title></head><body><p>first part</p>")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
	})
	t.Cleanup(func() { close(release) }) // runs before s.Close: handlers return first
	b := New(Options{Allow: allowLoopback, Timeout: 300 * time.Millisecond})
	for _, path := range []string{"/never", "/stalls"} {
		start := time.Now()
		wantErr(t, openErr(t, b, s.URL+path), jarvisbot.EUNAVAILABLE, "did not answer within 300ms")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: the call took %s with a 300ms cap", path, d)
		}
	}
}

func TestNonHTMLShownOrDescribedP6(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2000)...)
	pdf := append([]byte("%PDF-1.7\n%âãÏÓ\n1 0 obj\n"), make([]byte, 5000)...)
	s := newSite(t, map[string]http.HandlerFunc{
		"/notes.txt": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "Shopping list\n\n- eggs\n- flour\n")
		},
		"/data.json": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"temperature": 21.5, "unit": "C"}`)
		},
		"/paper.pdf": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(pdf)
		},
		"/unlabelled": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.(http.Flusher).Flush() // no Content-Length: the size is counted
			w.Write(pdf)
		},
		"/photo.png": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		},
		"/latin1": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
			w.Write([]byte("Gr\xfc\xdfe aus M\xfcnchen"))
		},
	})
	b := New(Options{Allow: allowLoopback})
	cases := []struct {
		path string
		want []string
	}{
		{"/notes.txt", []string{"Shopping list", "- flour"}},
		{"/data.json", []string{`"temperature": 21.5`}},
		{"/paper.pdf", []string{"This is a PDF document, 4.9 KiB, not a web page"}},
		{"/unlabelled", []string{"This is a PDF document, 4.9 KiB"}},
		{"/photo.png", []string{"This is an image (image/png), 2 KiB"}},
		{"/latin1", []string{"Grüße aus München"}},
	}
	for _, c := range cases {
		text := mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + c.path})
		contains(t, text, c.want...)
	}
	mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + "/paper.pdf"})
	text := mustCall(t, b, "c", map[string]any{"action": "find", "query": "abstract"})
	contains(t, text, "is a PDF document", "no text to search")
}

func TestOnlyHTTPAndHTTPSOpenedP6(t *testing.T) {
	b := New(Options{Allow: allowLoopback})
	for _, u := range []string{
		"file:///etc/passwd",
		"ftp://ftp.example.org/pub/file.txt",
		"javascript:alert(document.cookie)",
		"data:text/html,<h1>hi</h1>",
		"gopher://example.org/",
	} {
		wantErr(t, openErr(t, b, u), jarvisbot.EINVALID, "only http and https")
	}
	_, err := call(t, b, "c", map[string]any{"action": "open", "url": "http://user:secret@example.org/"})
	wantErr(t, err, jarvisbot.EINVALID, "user name or password")
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the password: %v", err)
	}
	_, err = call(t, b, "c", map[string]any{"action": "open", "url": "/relative/path"})
	wantErr(t, err, jarvisbot.EINVALID, "not a full web address")
	_, err = call(t, b, "c", map[string]any{"action": "open"})
	wantErr(t, err, jarvisbot.EINVALID, "url is required")
	_, err = call(t, b, "c", map[string]any{"action": "browse"})
	wantErr(t, err, jarvisbot.EINVALID, "use open, follow or find")
	_, err = call(t, b, "c", map[string]any{"action": "open", "address": "x"})
	wantErr(t, err, jarvisbot.EINVALID, "address")
}

func TestWhyRefusedP6(t *testing.T) {
	refused := []string{
		"127.0.0.1", "127.8.9.10", "::1", "10.0.0.1", "172.31.255.255", "192.168.0.1",
		"169.254.169.254", "169.254.0.5", "fe80::1", "fc00::1", "fd12:3456::1",
		"0.0.0.0", "::", "0.1.2.3", "100.64.0.1", "100.127.255.254", "224.0.0.251", "ff02::1",
		"255.255.255.255", "240.0.0.1", "192.0.2.1", "198.18.0.1",
		"::ffff:10.0.0.1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
		"64:ff9b::7f00:1", "2002:a00:1::1", "2002:7f00:1::", "2001:db8::1",
	}
	for _, s := range refused {
		if whyRefused(netip.MustParseAddr(s)) == "" {
			t.Errorf("%s is not refused", s)
		}
	}
	public := []string{"1.1.1.1", "8.8.8.8", "93.184.216.34", "100.128.0.1", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"}
	for _, s := range public {
		if why := whyRefused(netip.MustParseAddr(s)); why != "" {
			t.Errorf("%s is refused as %s", s, why)
		}
	}
}

func TestBadAllowListReportedP6(t *testing.T) {
	for _, entry := range []string{"192.168.1.0/33", "not a host!", "*.", "10.0.0.0/8x"} {
		o := Options{Allow: []string{"nas.local", entry}}
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "browser.allow") {
			t.Errorf("Validate(%q) = %v, want an error naming browser.allow", entry, err)
		}
		_, err := call(t, New(o), "c", map[string]any{"action": "open", "url": "https://example.org/"})
		wantErr(t, err, jarvisbot.EINVALID, "browser.allow", "fix it in the config")
	}
	if err := (Options{Engine: "firefox"}).Validate(); err == nil || !strings.Contains(err.Error(), "chromium") {
		t.Errorf("an unknown engine: %v", err)
	}
	ok := Options{Engine: "chromium", Allow: []string{"nas.home.arpa", "*.home.arpa", "192.168.1.0/24", "10.0.0.7", "fd00::/8", " "}}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestCapabilityIsSafeForEveryActionC2(t *testing.T) {
	c := New(Options{}).Capability()
	if c.ID != ID || c.Kind != catalog.KindBuiltin || c.Tier != catalog.TierSafe || !c.Connected {
		t.Errorf("capability %+v", c)
	}
	var schema struct {
		Properties struct {
			Action struct {
				Enum []string `json:"enum"`
			} `json:"action"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(c.InputSchema, &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	for _, a := range schema.Properties.Action.Enum {
		if c.ActionTiers[a] != catalog.TierSafe {
			t.Errorf("action %s has tier %q, want safe", a, c.ActionTiers[a])
		}
	}
	if len(schema.Properties.Action.Enum) != len(c.ActionTiers) {
		t.Errorf("schema actions %v, tiers %v", schema.Properties.Action.Enum, c.ActionTiers)
	}
}

func TestMemoryKeepsLastPagePerChatBoundedP6(t *testing.T) {
	m := newMemory(3)
	for i := range 3 {
		m.put(fmt.Sprint(i), &page{url: fmt.Sprint(i)})
	}
	m.get("0") // chat 0 was used; chat 1 is now the oldest
	m.put("3", &page{url: "3"})
	if m.get("1") != nil {
		t.Error("the chat used longest ago was kept")
	}
	for _, c := range []string{"0", "2", "3"} {
		if p := m.get(c); p == nil || p.url != c {
			t.Errorf("chat %s: %v", c, p)
		}
	}
	m.put("0", &page{url: "new"})
	if p := m.get("0"); p.url != "new" || len(m.pages) != 3 {
		t.Errorf("replacing a chat's page: %v, %d chats", p, len(m.pages))
	}
}

func TestParseURLReadsAddressesAsPeopleWriteThemP6(t *testing.T) {
	base, _ := parseURL("https://example.org/docs/intro", nil)
	for _, c := range []struct {
		in   string
		base bool
		want string
	}{
		{"example.org/page", false, "https://example.org/page"},
		{"  https://example.org/a#section  ", false, "https://example.org/a"},
		{"HTTP://Example.org/", false, "http://Example.org/"},
		{"../about", true, "https://example.org/about"},
		{"/search?q=bees", true, "https://example.org/search?q=bees"},
		{"https://other.example/x", true, "https://other.example/x"},
	} {
		b := base
		if !c.base {
			b = nil
		}
		u, err := parseURL(c.in, b)
		if err != nil || u.String() != c.want {
			t.Errorf("parseURL(%q) = %v, %v; want %s", c.in, u, err, c.want)
		}
	}
	g := newGuard(allowList{})
	for _, ok := range []string{"https://bücher.example/", "http://example.org:8080/x", "https://xn--bcher-kva.example/"} {
		u, _ := parseURL(ok, nil)
		if err := g.checkURL(u); err != nil {
			t.Errorf("checkURL(%s): %v", ok, err)
		}
	}
	for _, bad := range []string{"https://exa mple.org/", "http://under_score!.org/"} {
		u, err := parseURL(bad, nil)
		if err == nil {
			err = g.checkURL(u)
		}
		wantErr(t, err, jarvisbot.EINVALID)
	}
}

func TestTextFilesKeepTheirIndentationP6(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{"/config.json": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "\n{\n  \"garden\": {\n    \"beds\": 4\n  }\n}\n\n\n")
	}})
	b := New(Options{Allow: allowLoopback})
	text := mustCall(t, b, "c", map[string]any{"action": "open", "url": s.URL + "/config.json"})
	contains(t, text, "{\n  \"garden\": {\n    \"beds\": 4\n  }\n}")
}
