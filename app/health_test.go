package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestReadiness: /readyz's reasons in the order a replica meets them, and
// a store that does not answer, whose error stays in the log.
func TestReadiness(t *testing.T) {
	down := errors.New("dial tcp 10.1.2.3:5432: secret-host refused")
	tests := []struct {
		name              string
		started, draining bool
		ping              error
		want              error
	}{
		{"starting", false, false, nil, errStarting},
		{"ready", true, false, nil, nil},
		{"store down", true, false, down, errNoStore},
		{"draining", true, true, nil, errDraining},
		{"draining with the store down", true, true, down, errDraining},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Readiness
			r.Started.Store(tt.started)
			r.draining.Store(tt.draining)
			var logged strings.Builder
			log := slog.New(slog.NewTextHandler(&logged, nil))
			err := r.Check(context.Background(), func(context.Context) error { return tt.ping }, log)
			if err != tt.want {
				t.Errorf("check = %v, want %v", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "secret-host") {
				t.Errorf("the reason shows the store's error: %v", err)
			}
			if tt.want == errNoStore && !strings.Contains(logged.String(), "secret-host") {
				t.Errorf("the store's error is not logged:\n%s", logged.String())
			}
		})
	}
}
