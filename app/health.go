package app

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The reasons /readyz gives: short, fixed, nothing private.
var (
	errStarting = errors.New("starting: the channels are not started yet")
	errDraining = errors.New("draining: this replica is stopping")
	errNoStore  = errors.New("the store does not answer")
)

// Readiness is what serve's /readyz tells a balancer or an orchestrator
// (issue 20): ready once the channels started, not while the replica
// stops, and only while the store answers.
type Readiness struct {
	Started  atomic.Bool // the channels were started
	draining atomic.Bool // shutdown began: no new work should come here
	// storeDown remembers the last ping's outcome, so that a store that
	// stops answering is logged once, not at every probe.
	storeDown atomic.Bool
	// missing are the listeners on a default address that was taken,
	// each with why; deaf ones (Telegram's webhook) keep the replica
	// not ready, since it receives nothing.
	mu      sync.Mutex
	missing []string
	deaf    []string
}

// notServed records a listener left out at start-up (its default address
// was taken): /readyz says it, and when deaf (the replica cannot receive
// without it) answers not ready.
func (r *Readiness) NotServed(reason string, deaf bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if deaf {
		r.deaf = append(r.deaf, reason)
		return
	}
	r.missing = append(r.missing, reason)
}

// notes are what /readyz adds to "ready": the listeners not served.
func (r *Readiness) Notes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.missing)
}

// check is /readyz's answer.
func (r *Readiness) Check(ctx context.Context, ping func(context.Context) error, log *slog.Logger) error {
	switch {
	case r.draining.Load():
		return errDraining
	case !r.Started.Load():
		return errStarting
	}
	r.mu.Lock()
	deaf := slices.Clone(r.deaf)
	r.mu.Unlock()
	if len(deaf) > 0 {
		return errors.New(strings.Join(deaf, "; "))
	}
	if err := ping(ctx); err != nil {
		if !r.storeDown.Swap(true) {
			log.Error("the store does not answer: /readyz says not ready until it does", "err", err)
		}
		return errNoStore
	}
	if r.storeDown.Swap(false) {
		log.Info("the store answers again: /readyz says ready")
	}
	return nil
}
