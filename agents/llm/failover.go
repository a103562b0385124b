package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// A chain of providers (failover, A3) answers a call from its primary
// while the primary answers, and from the next link when it is busy
// (429), down (5xx, 529 overloaded), unreachable or out of time. Each
// link retries such a failure itself a bounded number of times (its
// retrying transport) before the chain moves on; what is the owner's to
// fix (a refused key, a bad request, no such model) ends the call with
// its own words, on any link, since another provider would only hide it.
//
// Models are built per turn, so the chain's health lives in a Failover
// that outlasts them: which link serves, and when the primary was last
// tried. While a fallback serves, the primary is tried again once every
// RetryPrimary, and the chain returns to it when it answers. The owner
// hears of each switch once: when a fallback takes over and when the
// primary is back.

// DefaultRetryPrimary is how long a fallback serves before the primary
// is tried again.
const DefaultRetryPrimary = 5 * time.Minute

// ChainRetries is each link's retry bound in a chain: one more send
// after a passing failure, so a turn reaches the next provider within
// seconds rather than after the full schedule a lone provider gets.
const ChainRetries = 1

// ChainMaxWait is the longest a link waits before its retry: a busy API
// that asks for more (Retry-After) is left for the next link at once.
const ChainMaxWait = 2 * time.Second

// Failover is one chain's health across turns. Its zero value is ready:
// the primary serves, on the wall clock, and nobody is told. It is safe
// for concurrent use.
type Failover struct {
	Clock        clock.Clock   // nil: the wall clock
	RetryPrimary time.Duration // 0: DefaultRetryPrimary
	// Tell gives the owner a line when a fallback takes over and when the
	// primary is back; nil tells nobody. It is called outside any lock,
	// with a context that outlives the turn's cancel.
	Tell func(ctx context.Context, text string)

	mu     sync.Mutex
	active int       // the link that answered last; 0 is the primary
	tried  time.Time // when the primary last failed, or was last tried while a fallback served
	reason string    // why the primary last failed, for the owner
	since  time.Time // when the serving fallback took over
}

// Active is the index of the link that serves now: 0 while the primary
// does.
func (f *Failover) Active() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.active
}

// Serving says which link serves now (0: the primary) and, while a
// fallback does, why the primary was left and since when.
type Serving struct {
	Link   int
	Reason string
	Since  time.Time
}

// Serving is the chain's state now, for a status page.
func (f *Failover) Serving() Serving {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.active == 0 {
		return Serving{}
	}
	return Serving{Link: f.active, Reason: f.reason, Since: f.since}
}

func (f *Failover) now() time.Time {
	if f.Clock == nil {
		return time.Now()
	}
	return f.Clock.Now()
}

// order is the links a call tries, in turn: from the primary while it
// serves or when it is due to be tried again; else from the serving
// fallback on, and the links before it last of all, rather than fail.
func (f *Failover) order(n int) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	start := min(f.active, n-1)
	if start > 0 && f.now().Sub(f.tried) >= cmp.Or(f.RetryPrimary, DefaultRetryPrimary) {
		start = 0
		f.tried = f.now() // one call at a time tries it; the others stay on the fallback
	}
	out := make([]int, 0, n)
	for i := range n {
		out = append(out, (start+i)%n)
	}
	return out
}

// failed notes a passing failure of link i.
func (f *Failover) failed(i int, err error) {
	if i != 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tried, f.reason = f.now(), reason(err)
}

// answered notes that link i answered, and tells the owner when that
// moved the chain off its primary or back onto it.
func (f *Failover) answered(ctx context.Context, i int, links []Provider) {
	f.mu.Lock()
	prev := f.active
	f.active = i
	if prev == 0 && i > 0 {
		f.since = f.now()
	}
	why := f.reason
	f.mu.Unlock()
	var text string
	switch {
	case prev == 0 && i > 0:
		text = fmt.Sprintf("The model %s is failing (%s); %s answers for now. %s is tried again every %s, and you will hear when it is back.",
			links[0].Name(), why, links[i].Name(), links[0].Name(), every(cmp.Or(f.RetryPrimary, DefaultRetryPrimary)))
	case prev > 0 && i == 0:
		text = fmt.Sprintf("The model %s answers again and is back in use; %s is no longer needed.", links[0].Name(), links[min(prev, len(links)-1)].Name())
	}
	if text != "" && f.Tell != nil {
		f.Tell(context.WithoutCancel(ctx), text)
	}
}

// Build returns the provider ch chooses: a lone provider as New builds
// it, or, with fallbacks, a chain on f whose links retry for
// ChainRetries and wait on f's clock.
func (f *Failover) Build(ch Choice) (Provider, error) {
	if len(ch.Fallbacks) == 0 {
		return New(ch.Config)
	}
	links := make([]Provider, 0, len(ch.Fallbacks)+1)
	maxTokens := make([]int, 0, len(ch.Fallbacks)+1)
	for _, l := range append([]Link{{Config: ch.Config}}, ch.Fallbacks...) {
		cfg := l.Config
		if cfg.MaxRetries == 0 {
			cfg.MaxRetries = ChainRetries
		}
		if cfg.clock == nil {
			cfg.clock = f.Clock
		}
		if cfg.maxWait == 0 {
			cfg.maxWait = ChainMaxWait
		}
		p, err := New(cfg)
		if err != nil {
			return nil, err
		}
		links, maxTokens = append(links, p), append(maxTokens, l.MaxTokens)
	}
	return f.Chain(links, maxTokens), nil
}

// Chain returns the provider that calls links in order on f's health,
// links[0] the primary. maxTokens, when given, caps each link's answers
// (0: the request's own cap).
func (f *Failover) Chain(links []Provider, maxTokens []int) Provider {
	return &chain{f: f, links: links, maxTokens: maxTokens}
}

type chain struct {
	f         *Failover
	links     []Provider
	maxTokens []int
}

// Name is the serving link's, for logs and messages.
func (c *chain) Name() string { return c.links[min(c.f.Active(), len(c.links)-1)].Name() }

// Who is the serving link's; a Response says which link answered it.
func (c *chain) Who() (provider, model string) {
	return Who(c.links[min(c.f.Active(), len(c.links)-1)])
}

// Complete asks the links in the order Failover gives until one answers.
// Each link builds its own request from req, so each provider's prompt
// cache sees its own stable prefix, turn after turn.
func (c *chain) Complete(ctx context.Context, req Request) (Response, error) {
	var errs []error
	for _, i := range c.f.order(len(c.links)) {
		r := req
		if i < len(c.maxTokens) && c.maxTokens[i] > 0 {
			r.MaxTokens = c.maxTokens[i]
		}
		res, err := c.links[i].Complete(ctx, r)
		if err == nil {
			c.f.answered(ctx, i, c.links)
			return res, nil
		}
		if ctx.Err() != nil || !passing(err) {
			// The caller's own end, or the owner's to fix: said as it is.
			return Response{}, err
		}
		c.f.failed(i, err)
		errs = append(errs, err)
	}
	var names, whys []string
	for _, p := range c.links {
		names = append(names, p.Name())
	}
	for _, err := range errs {
		whys = append(whys, err.Error())
	}
	return Response{}, &jarvisbot.Error{Code: jarvisbot.EUNAVAILABLE, Err: errors.Join(errs...), Message: fmt.Sprintf(
		"none of the models answers (%s): %s", strings.Join(names, ", "), strings.Join(whys, "; "))}
}

// every says an interval in words: "5 minutes", "1 hour", else as Go
// writes it.
func every(d time.Duration) string {
	switch {
	case d == time.Hour:
		return "hour"
	case d == time.Minute:
		return "minute"
	case d%time.Hour == 0:
		return fmt.Sprintf("%d hours", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}

// passing reports whether a link's failure may pass and the next link
// should be asked: busy, overloaded, a server error, a timeout or a failed
// connection; not a refused key, a bad request or a wrong model name.
func passing(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		c := se.StatusCode
		return c == http.StatusRequestTimeout || c == http.StatusConflict || c == http.StatusTooManyRequests || c >= 500
	}
	return jarvisbot.ErrorCode(err) == jarvisbot.EUNAVAILABLE
}

// reason says in a few words why a link failed, without the API's own
// words, which are not the owner's to read in a notice.
func reason(err error) string {
	var se *StatusError
	switch {
	case errors.As(err, &se) && se.StatusCode == 529:
		return "529 overloaded"
	case errors.As(err, &se) && http.StatusText(se.StatusCode) != "":
		return fmt.Sprintf("%d %s", se.StatusCode, http.StatusText(se.StatusCode))
	case errors.As(err, &se):
		return fmt.Sprintf("status %d", se.StatusCode)
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	}
	return "cannot be reached"
}
