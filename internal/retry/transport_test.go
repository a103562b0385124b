package retry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// script answers requests with the statuses given, in order, then 200;
// it records each request's method and body.
type script struct {
	mu       sync.Mutex
	statuses []int
	header   http.Header
	seen     []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, r.Method+" "+string(b))
	status := http.StatusOK
	if len(s.seen) <= len(s.statuses) {
		status = s.statuses[len(s.seen)-1]
	}
	s.mu.Unlock()
	for k, v := range s.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "answer")
}

func (s *script) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// TestTransportRetriesWhatIsSafe: busy answers are retried for every
// method with the body sent again; a 500 to a POST, which may have been
// done, is not; a Retry-After beyond the cap gives the answer back.
func TestTransportRetriesWhatIsSafe(t *testing.T) {
	for _, tc := range []struct {
		name       string
		method     string
		statuses   []int
		retryAfter string
		wantSends  int
		wantStatus int
	}{
		{"busy GET", http.MethodGet, []int{503, 429}, "0", 3, 200},
		{"busy POST", http.MethodPost, []int{429}, "0", 2, 200},
		{"GET server error", http.MethodGet, []int{500, 502, 504}, "0", 4, 200},
		{"POST server error is not repeated", http.MethodPost, []int{500}, "0", 1, 500},
		{"not found is final", http.MethodGet, []int{404}, "0", 1, 404},
		{"attempts run out", http.MethodGet, []int{503, 503, 503, 503, 503}, "0", 4, 503},
		{"wait too long", http.MethodGet, []int{429}, "3600", 1, 429},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{statuses: tc.statuses, header: http.Header{"Retry-After": {tc.retryAfter}}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			hc := &http.Client{Transport: &Transport{}}
			req, err := http.NewRequest(tc.method, srv.URL, strings.NewReader("the body"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			seen := s.requests()
			if len(seen) != tc.wantSends {
				t.Errorf("sent %d times, want %d", len(seen), tc.wantSends)
			}
			for _, r := range seen {
				if r != tc.method+" the body" {
					t.Errorf("a send carried %q, want the whole body each time", r)
				}
			}
		})
	}
}

// TestTransportWaitsOnItsClock: without Retry-After the waits follow the
// policy on the transport's clock, and a cancelled request stops waiting.
func TestTransportWaitsOnItsClock(t *testing.T) {
	s := &script{statuses: []int{503}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	hc := &http.Client{Transport: &Transport{Clock: clk, Policy: Policy{Min: time.Second, Max: time.Second}}}
	done := make(chan int, 1)
	go func() {
		resp, err := hc.Get(srv.URL)
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	testwait.For(t, 10*time.Second, "the transport to wait for its retry", func() (bool, any) {
		return clk.Pending() == 1, "no wait yet"
	})
	clk.Advance(time.Second)
	if got := <-done; got != 200 {
		t.Fatalf("status %d after the wait, want 200", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	s2 := &script{statuses: []int{503}}
	srv2 := httptest.NewServer(s2)
	defer srv2.Close()
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv2.URL, nil)
		_, err := hc.Do(req)
		errc <- err
	}()
	testwait.For(t, 10*time.Second, "the second request to wait", func() (bool, any) {
		return clk.Pending() == 1, "no wait yet"
	})
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled request during the wait succeeded")
	}
}

// TestTransportRepeatsWhatChangesNothing: with Repeatable, a POST that
// changes nothing (a model's completion) is sent again after server
// errors and Anthropic's 529, but not after a refusal, and not when the
// server says not to.
func TestTransportRepeatsWhatChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name        string
		statuses    []int
		shouldRetry string
		wantSends   int
		wantStatus  int
	}{
		{"server errors", []int{500, 502, 504}, "", 4, 200},
		{"overloaded", []int{529}, "", 2, 200},
		{"busy", []int{429, 408}, "", 3, 200},
		{"bad request is final", []int{400}, "", 1, 400},
		{"refused key is final", []int{401}, "", 1, 401},
		{"the server says not to", []int{500}, "false", 1, 500},
		{"attempts run out", []int{503, 503, 503, 503, 503}, "", 4, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Retry-After": {"0"}}
			if tc.shouldRetry != "" {
				h.Set("X-Should-Retry", tc.shouldRetry)
			}
			s := &script{statuses: tc.statuses, header: h}
			srv := httptest.NewServer(s)
			defer srv.Close()
			hc := &http.Client{Transport: &Transport{Again: Repeatable}}
			resp, err := hc.Post(srv.URL, "application/json", strings.NewReader("the body"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if seen := s.requests(); len(seen) != tc.wantSends {
				t.Errorf("sent %d times, want %d", len(seen), tc.wantSends)
			}
		})
	}
}

// failing fails its first n round trips as a refused connection would.
type failing struct {
	mu   sync.Mutex
	n    int
	next http.RoundTripper
}

func (f *failing) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	fail := f.n > 0
	f.n--
	f.mu.Unlock()
	if fail {
		return nil, errors.New("connect: connection refused")
	}
	return f.next.RoundTrip(r)
}

// TestTransportRepeatsAFailedConnectionOnItsClock: with Repeatable, a call
// whose connection failed is sent again after the policy's wait on the
// transport's clock; under the default rule it fails at once.
func TestTransportRepeatsAFailedConnectionOnItsClock(t *testing.T) {
	s := &script{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	hc := &http.Client{Transport: &Transport{Next: &failing{n: 1, next: http.DefaultTransport}, Clock: clk,
		Policy: Policy{Min: time.Second, Max: time.Second}, Again: Repeatable}}
	done := make(chan error, 1)
	go func() {
		resp, err := hc.Post(srv.URL, "application/json", strings.NewReader("the body"))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	testwait.For(t, 10*time.Second, "the transport to wait before sending again", func() (bool, any) {
		return clk.Pending() == 1, "no wait yet"
	})
	clk.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatalf("after the wait: %v", err)
	}
	if seen := s.requests(); len(seen) != 1 || seen[0] != "POST the body" {
		t.Errorf("the server got %q, want the body once", seen)
	}

	plain := &http.Client{Transport: &Transport{Next: &failing{n: 1, next: http.DefaultTransport}, Clock: clk}}
	if _, err := plain.Post(srv.URL, "application/json", strings.NewReader("x")); err == nil {
		t.Error("the default rule sent a POST again after a failed connection")
	}
}
