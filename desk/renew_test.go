package desk

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels"
)

// TestRenewButtonP4: a sign-in that needs attention is told to the owner
// with a Renew button; a stranger's press is refused; the owner's press
// sends the sign-in link to the chat, and a word once it is done.
func TestRenewButtonP4(t *testing.T) {
	d, plat, _, _ := setup(t, "test:1")
	ctx := context.Background()
	done := make(chan error, 1)
	var started []string
	d.opt.Renew = func(_ context.Context, plugin string) (string, func(context.Context) error, error) {
		started = append(started, plugin)
		return "https://accounts.example/authorize?state=s1", func(ctx context.Context) error {
			select {
			case err := <-done:
				return err
			case <-ctx.Done():
				return ctx.Err()
			}
		}, nil
	}
	d.NeedsAttention(ctx, "test:1", "gmail", "Gmail")
	plat.mu.Lock()
	last := plat.sent[len(plat.sent)-1]
	plat.mu.Unlock()
	if !strings.Contains(last.Text, "Gmail expired or was revoked") || len(last.Buttons) != 1 || last.Buttons[0][0].Data != "renew:gmail" {
		t.Fatalf("the notice: %q with %v", last.Text, last.Buttons)
	}
	var notices []string
	press := func(user string) {
		d.HandlePress(ctx, channels.Press{Chat: "test:1", User: user, Data: "renew:gmail", Answer: func(_ context.Context, s string) error {
			notices = append(notices, s)
			return nil
		}})
	}
	press("test:2")
	if len(started) != 0 || !slices.Contains(notices, "Only the owner can renew a sign-in.") {
		t.Fatalf("a stranger's press: started %v, notices %v", started, notices)
	}
	press("test:1")
	if !slices.Equal(started, []string{"gmail"}) {
		t.Fatalf("the owner's press started %v", started)
	}
	if got := plat.to("test:1"); !strings.Contains(got[len(got)-1], "https://accounts.example/authorize?state=s1") {
		t.Fatalf("the link was not sent: %q", got)
	}
	done <- nil
	waitFor(t, "the word that the sign-in is done", func() (bool, any) {
		got := plat.to("test:1")
		return strings.Contains(got[len(got)-1], "Signed in to gmail again"), got
	})
}
