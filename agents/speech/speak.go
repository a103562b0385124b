package speech

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"strings"
	"time"
	"unicode"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/oggopus"
)

// Speaker turns text into an OGG/Opus voice note through
// {base}/audio/speech. It is safe for concurrent use.
type Speaker struct {
	c     client
	model string
	voice string
}

// MaxSpoken is the most characters spoken: OpenAI takes 4096, and a voice
// note longer than a few minutes is not an answer anyone listens to.
const MaxSpoken = 4000

// maxSpeech bounds the audio answer: 4,000 characters are some five
// minutes, about 2.5 MB of Opus at 64 kbit/s.
const maxSpeech = 20 << 20

// NewSpeaker checks e and builds a Speaker that speaks with voice (e.g.
// "alloy"); nothing is sent yet.
func NewSpeaker(e Endpoint, voice string) (*Speaker, error) {
	c, err := newClient(e, "the speech endpoint", speechURLSetting, transcriptionKey, maxSpeech)
	if err != nil {
		return nil, err
	}
	if voice == "" {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "the speech endpoint at %s has no voice set", c.base)
	}
	return &Speaker{c: c, model: e.Model, voice: voice}, nil
}

// Speak returns text spoken as OGG/Opus and how long it plays. Text
// longer than MaxSpoken is cut at the last sentence end before the bound.
// An answer that is not OGG/Opus (an endpoint that sends MP3 whatever it
// is asked, or an error page) is refused with an error that says so.
func (s *Speaker) Speak(ctx context.Context, text string) ([]byte, time.Duration, error) {
	text = Shorten(text, MaxSpoken)
	if text == "" {
		return nil, 0, jarvisbot.Errorf(jarvisbot.EINVALID, "there is no text to speak")
	}
	body, err := json.Marshal(struct {
		Model          string `json:"model"`
		Input          string `json:"input"`
		Voice          string `json:"voice"`
		ResponseFormat string `json:"response_format"`
	}{s.model, text, s.voice, "opus"})
	if err != nil {
		return nil, 0, err // strings always marshal
	}
	callCtx, cancel := context.WithTimeout(ctx, s.c.timeout)
	defer cancel()
	res, err := s.c.post(callCtx, "/audio/speech", "application/json", body)
	if err != nil {
		return nil, 0, s.c.fail(ctx, err)
	}
	defer func() { _ = res.Body.Close() }() // read to the end or failed; nothing is left to report
	audio, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, 0, s.c.fail(ctx, err)
	}
	info, err := oggopus.Check(audio)
	if err != nil {
		ctype, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
		if ctype == "" {
			ctype = "no Content-Type"
		}
		return nil, 0, jarvisbot.Errorf(jarvisbot.EINVALID, "the speech endpoint at %s (model %s) answered %d bytes (%s) that are not a voice note Telegram can play: %w; use an endpoint and model that answer response_format \"opus\" with OGG/Opus", s.c.base, s.model, len(audio), ctype, err)
	}
	return audio, info.Duration, nil
}

// Shorten returns text trimmed, and if it has more than max characters,
// cut to at most max: at the last sentence end when one falls in the
// second half, else at the last space, else anywhere.
func Shorten(text string, max int) string {
	text = strings.TrimSpace(text)
	r := []rune(text)
	if len(r) <= max {
		return text
	}
	full := r
	r = r[:max]
	cut := -1
	for i := len(r) - 1; i >= max/2; i-- {
		if isSentenceEnd(full, i) {
			cut = i + 1
			break
		}
	}
	if cut < 0 {
		for i := len(r) - 1; i >= max/2; i-- {
			if unicode.IsSpace(r[i]) {
				cut = i
				break
			}
		}
	}
	if cut < 0 {
		cut = len(r)
	}
	return strings.TrimSpace(string(r[:cut]))
}

// isSentenceEnd reports whether r[i] ends a sentence: a full stop,
// question or exclamation mark (or a line break) followed by space.
func isSentenceEnd(r []rune, i int) bool {
	switch r[i] {
	case '\n':
		return true
	case '.', '!', '?', '…', '。':
		return i+1 < len(r) && unicode.IsSpace(r[i+1])
	}
	return false
}
