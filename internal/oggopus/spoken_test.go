package oggopus_test

import (
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakespeech"
	"github.com/jarvisbot/jarvisbot/internal/oggopus"
)

// A voice note made now by espeak-ng and opusenc, not the kept one: the
// reader follows the encoder Debian ships today.
func TestCheckReadsFreshSpeech_V1(t *testing.T) {
	audio := fakespeech.Spoken(t, "The quick brown fox jumps over the lazy dog, twice.")
	info, err := oggopus.Check(audio)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	// espeak-ng speaks mono at 22,050 Hz; the sentence takes a few seconds.
	if info.Channels != 1 || info.InputSampleRate != 22050 || info.PreSkip == 0 || info.Pages < 3 {
		t.Errorf("Check = %+v; want mono, 22050 Hz, a pre-skip, at least 3 pages", info)
	}
	if info.Duration < 2*time.Second || info.Duration > 10*time.Second {
		t.Errorf("duration %v; the sentence takes some seconds", info.Duration)
	}
}
