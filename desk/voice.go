package desk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/store"
)

// Voice notes and audio files (V1): an owner's note is downloaded when it
// arrives and kept in the inbox with the message, so that nothing is lost
// between the platform's confirmation and the transcription; the turn
// transcribes it, keeps what was heard, and answers in text (and, for a
// voice note, also spoken).

// The bounds of a note the desk takes. 20 MB is what the Telegram Bot API
// lets a bot download; ten minutes of speech is far more than a message
// and already a long transcription.
const (
	maxAudioBytes  = 20 << 20
	maxAudioLength = 10 * time.Minute
	// fetchTimeout bounds a download, which the channel waits for before
	// it confirms the message: a stalled one must not hold the chat.
	fetchTimeout = 2 * time.Minute
	// quoteRunes is about how much of what was heard the answer quotes.
	quoteRunes = 200
)

// defaultNoTranscription is said when the service gave no text of its own.
const defaultNoTranscription = "I cannot hear voice notes yet: no transcription endpoint is set. Your note is kept and answered once one is."

// noun names what the owner sent.
func noun(voice bool) string {
	if voice {
		return "voice note"
	}
	return "audio file"
}

// fetchAudio downloads an owner's note for the inbox. A note over the
// bounds, or one whose download fails, gets one answer and no turn (nil).
func (d *Desk) fetchAudio(ctx context.Context, m channels.Message) *store.IncomingAudio {
	a := m.Audio
	what := noun(a.Voice)
	refuse := func(text string) *store.IncomingAudio {
		if d.first(ctx, m.Chat, m.Delivery) { // refused once, however often it comes
			d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: text, ReplyTo: m.ID})
		}
		return nil
	}
	switch {
	case a.Duration > maxAudioLength:
		return refuse(fmt.Sprintf("That %s is %d minutes long; I take up to %d minutes. Please send a shorter one.",
			what, int((a.Duration+time.Minute-1)/time.Minute), int(maxAudioLength/time.Minute)))
	case a.Size > maxAudioBytes:
		return refuse(fmt.Sprintf("That %s is %d MB; I take up to %d MB. Please send a smaller one.",
			what, (a.Size+1<<20-1)>>20, maxAudioBytes>>20))
	case a.Fetch == nil:
		d.log.Error("a channel announced audio it cannot download", "chat", m.Chat)
		return refuse(fmt.Sprintf("I could not download your %s: this channel cannot fetch it.", what))
	}
	data, why := d.download(ctx, m.Chat, what, a.Fetch, maxAudioBytes)
	if why != "" {
		return refuse(why)
	}
	return &store.IncomingAudio{Data: data, MIME: a.MIME, Duration: a.Duration, Voice: a.Voice, FileName: a.FileName}
}

// errKept ends the turn of a note that stays in the inbox for a later
// start (no transcription endpoint, or the transcription failed).
var errKept = errors.New("the audio is kept in the inbox and tried again at the next start")

// hear turns a queued note into what was heard, once: the text is kept
// in the inbox, so a restart does not transcribe it again. When there is
// nothing to answer with, it has told the owner why and returns "", with
// whether the message is done with and the error for the turn.
func (d *Desk) hear(ctx context.Context, m queued) (string, bool, error) {
	a := m.audio
	what := noun(a.Voice)
	if d.opt.Transcribe == nil {
		if !a.Told {
			d.send(context.WithoutCancel(ctx), channels.Outgoing{Chat: m.Chat, Text: d.opt.NoTranscription, ReplyTo: m.ID})
			if m.inbox != 0 {
				if err := d.opt.Store.ToldNoTranscription(context.WithoutCancel(ctx), m.inbox); err != nil {
					d.log.Error("remembering that the owner was told about a kept voice note; it may be said again after a restart", "chat", m.Chat, "err", err)
				}
			}
		}
		return "", false, errKept
	}
	heard, err := d.opt.Transcribe(ctx, a.Data, a.MIME, a.FileName)
	if err != nil {
		if ctx.Err() != nil {
			return "", d.stopped(ctx, m), err
		}
		d.log.Warn("transcribing an owner's audio", "chat", m.Chat, "err", err)
		d.send(context.WithoutCancel(ctx), channels.Outgoing{Chat: m.Chat, ReplyTo: m.ID,
			Text: fmt.Sprintf("I could not transcribe your %s: %v. It is kept and tried again at the next start.", what, strings.TrimSuffix(err.Error(), "."))})
		return "", false, fmt.Errorf("%w: %w", errKept, err)
	}
	heard = strings.TrimSpace(heard)
	if heard == "" {
		d.send(context.WithoutCancel(ctx), channels.Outgoing{Chat: m.Chat, Text: "I could not hear any words in that " + what + ".", ReplyTo: m.ID})
		return "", true, nil
	}
	if m.inbox != 0 {
		if err := d.opt.Store.Transcribed(context.WithoutCancel(ctx), m.inbox, spokenText(heard, m.Text, a)); err != nil {
			d.log.Error("keeping what was heard in a voice note; a restart transcribes it again", "chat", m.Chat, "err", err)
		}
	}
	return heard, true, nil
}

// stopped ends a turn whose context ended before it began: during the
// shutdown the message waits for the next start; stopped by the owner
// (/cancel), it is said and let go, as a text message would be.
func (d *Desk) stopped(ctx context.Context, m queued) bool {
	d.mu.Lock()
	stopping := d.draining || d.base.Err() != nil
	d.mu.Unlock()
	if stopping {
		return false
	}
	d.send(context.WithoutCancel(ctx), channels.Outgoing{Chat: m.Chat, Text: "Stopped.", ReplyTo: m.ID})
	return true
}

// spokenText is what the model reads for a note: what was heard, then the
// caption and, for an audio file, its name as context.
func spokenText(heard, caption string, a *store.IncomingAudio) string {
	var notes []string
	if !a.Voice {
		name := a.FileName
		if name == "" {
			name = "without a name"
		}
		notes = append(notes, "transcribed from an audio file the owner sent: "+name)
	}
	if c := strings.TrimSpace(caption); c != "" {
		notes = append(notes, "caption: "+c)
	}
	if len(notes) == 0 {
		return heard
	}
	return heard + "\n\n(" + strings.Join(notes, "; ") + ")"
}

// quote shows the owner what was heard, on one line, cut at a word near
// quoteRunes characters.
func quote(heard string) string {
	s := strings.Join(strings.Fields(heard), " ")
	if utf8.RuneCountInString(s) > quoteRunes {
		cut := len(string([]rune(s)[:quoteRunes]))
		if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut/2 {
			cut = sp
		}
		s = strings.TrimRight(s[:cut], " ,;:") + "…"
	}
	return "🎤 \"" + s + "\""
}

// speakBack sends the answer to a voice note as a voice note too, in
// reply to it, where the platform has them and speech is set. The text
// answer is already out: a failure here is only logged.
func (d *Desk) speakBack(ctx context.Context, m queued, answer string) {
	if d.opt.Speak == nil || m.audio == nil || !m.audio.Voice {
		return
	}
	vs, ok := d.channels[platform(m.Chat)].(channels.VoiceSender)
	if !ok {
		return
	}
	ogg, length, err := d.opt.Speak(ctx, answer)
	if err != nil {
		d.log.Warn("speaking an answer; it went out as text only", "chat", m.Chat, "err", err)
		return
	}
	if _, err := vs.SendVoice(ctx, channels.Voice{Chat: m.Chat, OGG: ogg, Duration: length, ReplyTo: m.ID}); err != nil {
		d.log.Warn("sending a spoken answer; it went out as text only", "chat", m.Chat, "err", err)
	}
}
