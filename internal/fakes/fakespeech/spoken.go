package fakespeech

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/oggopus"
)

// Tools names the Debian packages Spoken needs, for skip messages.
const Tools = "apt-get install espeak-ng opus-tools"

// spoken caches each sentence's voice note for the life of the test
// binary: making one runs two programs (~0.2 s), and the result is a pure
// function of the sentence, so sharing it between tests changes nothing
// they can observe. It is the one piece of package state, and only tests
// reach this package.
var spoken sync.Map // sentence → *spokenNote

type spokenNote struct {
	once sync.Once
	ogg  []byte
	err  string
}

// Spoken returns a real voice note of sentence: Debian's espeak-ng speaks
// it (US English) to a WAV file and opusenc (opus-tools) encodes that as
// OGG/Opus, the way a phone's recorder makes one. The test is skipped,
// with the apt command to run, when either program is missing.
func Spoken(t testing.TB, sentence string) []byte {
	t.Helper()
	for _, tool := range []string{"espeak-ng", "opusenc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed, so no real speech can be made (%s)", tool, Tools)
		}
	}
	v, _ := spoken.LoadOrStore(sentence, &spokenNote{})
	n := v.(*spokenNote)
	n.once.Do(func() { n.ogg, n.err = speak(t.TempDir(), sentence) })
	if n.err != "" {
		t.Fatalf("speaking %q: %s", sentence, n.err)
	}
	return n.ogg
}

// speak runs espeak-ng and opusenc in dir; the error is a sentence with
// their own words.
func speak(dir, sentence string) ([]byte, string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wav, ogg := filepath.Join(dir, "spoken.wav"), filepath.Join(dir, "spoken.ogg")
	// The sentence goes on stdin, so one starting with "-" is no option.
	say := exec.CommandContext(ctx, "espeak-ng", "-v", "en-us", "-s", "140", "-w", wav, "--stdin")
	say.Stdin = strings.NewReader(sentence)
	if out, err := say.CombinedOutput(); err != nil {
		return nil, "espeak-ng: " + err.Error() + ": " + string(out)
	}
	if out, err := exec.CommandContext(ctx, "opusenc", "--quiet", wav, ogg).CombinedOutput(); err != nil {
		return nil, "opusenc: " + err.Error() + ": " + string(out)
	}
	b, err := os.ReadFile(ogg)
	if err != nil {
		return nil, err.Error()
	}
	if _, err := oggopus.Check(b); err != nil {
		return nil, "opusenc made no valid OGG/Opus: " + err.Error()
	}
	return b, ""
}
