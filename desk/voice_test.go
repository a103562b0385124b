package desk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// voicePlatform is a platform with voice notes: it records what the desk
// sends as text (chatPlatform) and the voice notes, each with how many
// texts its chat had been sent before it, so a test sees the order.
type voicePlatform struct {
	chatPlatform
	voices    []sentVoice
	voiceFail error
	typing    atomic.Int32
}

func (p *voicePlatform) Typing(context.Context, string) error { p.typing.Add(1); return nil }

type sentVoice struct {
	channels.Voice
	textsBefore int
}

var _ channels.VoiceSender = (*voicePlatform)(nil)

func (p *voicePlatform) SendVoice(_ context.Context, v channels.Voice) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.voiceFail != nil {
		return "", p.voiceFail
	}
	n := 0
	for _, m := range p.sent {
		if m.Chat == v.Chat {
			n++
		}
	}
	p.voices = append(p.voices, sentVoice{Voice: v, textsBefore: n})
	return fmt.Sprint("v", len(p.voices)), nil
}

func (p *voicePlatform) spoken() []sentVoice {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]sentVoice(nil), p.voices...)
}

// voiceRig is one store, model and platform; desk starts a desk on them,
// as many times as a test restarts the service.
type voiceRig struct {
	db   *sqlstore.DB
	f    *fakellm.Server
	rt   *agents.Runtime
	plat *voicePlatform
}

const owner = "test:1"

func newVoiceRig(t *testing.T) *voiceRig {
	t.Helper()
	db, f, rt := newRuntime(t)
	return &voiceRig{db: db, f: f, rt: rt, plat: &voicePlatform{}}
}

// desk starts a desk over the rig's store; set changes its options. The
// desk is drained when the test ends.
func (r *voiceRig) desk(t *testing.T, st Store, set func(*Options)) *Desk {
	t.Helper()
	if st == nil {
		st = r.db
	}
	opt := Options{Runtime: r.rt, Approvals: approvals.New(approvals.Options{Store: r.db}), Store: st, Owners: []string{owner},
		NoTranscription: "To hear voice notes I need a transcription endpoint: set transcription.base_url."}
	if set != nil {
		set(&opt)
	}
	d, err := New(context.Background(), opt, r.plat)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Drain(context.Background()) })
	return d
}

// recording is a voice note whose bytes carry the words "spoken" in it,
// so that hear can transcribe it; fetched counts its downloads.
func recording(words string, voice bool, fetched *atomic.Int32) *channels.Audio {
	data := []byte("OggS" + words)
	a := &channels.Audio{Voice: voice, MIME: "audio/ogg", Duration: 4 * time.Second, Size: int64(len(data)),
		Fetch: func(_ context.Context, max int64) ([]byte, error) {
			fetched.Add(1)
			if int64(len(data)) > max {
				return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "the audio is larger than %d bytes", max)
			}
			return bytes.Clone(data), nil
		}}
	if !voice {
		a.MIME, a.FileName = "audio/mpeg", "memo.mp3"
	}
	return a
}

// hear transcribes a recording; calls counts the transcriptions.
func hear(calls *atomic.Int32) func(context.Context, []byte, string, string) (string, error) {
	return func(_ context.Context, audio []byte, mime, _ string) (string, error) {
		calls.Add(1)
		if !bytes.HasPrefix(audio, []byte("OggS")) || mime == "" {
			return "", fmt.Errorf("not a recording: %q (%s)", audio, mime)
		}
		return string(audio[len("OggS"):]), nil
	}
}

// speak makes a "voice note" whose bytes say which text it speaks.
func speak(_ context.Context, text string) ([]byte, time.Duration, error) {
	return []byte("OggS-spoken:" + text), 2 * time.Second, nil
}

func (r *voiceRig) waiting(t *testing.T) []store.Incoming {
	t.Helper()
	w, err := r.db.Waiting(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestVoiceNoteStoredBeforeHandleReturnsV1: an owner's voice note is
// downloaded and stored in the inbox with its audio before HandleMessage
// returns, which is when the channel confirms it to the platform: a crash
// right after loses nothing.
func TestVoiceNoteStoredBeforeHandleReturnsV1(t *testing.T) {
	r := newVoiceRig(t)
	d := r.desk(t, nil, nil) // no transcription: the note stays in the inbox
	var fetched atomic.Int32
	d.HandleMessage(context.Background(), channels.Message{Chat: owner, User: owner, ID: "m1", Text: "for later",
		Audio: recording("the ferns on the balcony look dry", true, &fetched)})
	if fetched.Load() != 1 {
		t.Fatalf("fetched %d times before HandleMessage returned, want once", fetched.Load())
	}
	w := r.waiting(t)
	if len(w) != 1 || w[0].Audio == nil || string(w[0].Audio.Data) != "OggSthe ferns on the balcony look dry" ||
		!w[0].Audio.Voice || w[0].Audio.MIME != "audio/ogg" || w[0].Audio.Duration != 4*time.Second || w[0].Text != "for later" {
		t.Fatalf("inbox after HandleMessage: %+v", w)
	}
}

// TestVoiceNoteWithoutTranscriptionKeptV1: with no transcription endpoint
// a voice note gets one answer saying what to set and stays in the inbox,
// while the chat's later messages are answered; a restart without the
// setting says nothing again; a restart with it transcribes the note and
// answers it.
func TestVoiceNoteWithoutTranscriptionKeptV1(t *testing.T) {
	r := newVoiceRig(t)
	ctx := context.Background()
	var fetched atomic.Int32
	noteToldOnce(t, r, &fetched)
	d := restartedStillDeaf(t, r)

	// A restart with the setting answers the note.
	d.Drain(ctx)
	var calls atomic.Int32
	d = r.desk(t, nil, func(o *Options) { o.Transcribe = hear(&calls) })
	r.f.Push(fakellm.Step{Text: "Groceries and the garden."})
	if err := d.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the note's answer", func() (bool, any) {
		got := r.plat.to(owner)
		return len(got) == 4, got
	})
	if got := r.plat.to(owner)[3]; got != "🎤 \"what is on my list for the weekend\"\n\nGroceries and the garden." {
		t.Errorf("the note's answer: %q", got)
	}
	waitFor(t, "the inbox to empty", func() (bool, any) { w := r.waiting(t); return len(w) == 0, w })
	if calls.Load() != 1 || fetched.Load() != 1 {
		t.Errorf("transcribed %d times, fetched %d times; want once each", calls.Load(), fetched.Load())
	}
}

// noteToldOnce sends a voice note and a text message to a desk with no
// transcription: the note gets the notice and stays in the inbox, the
// text is answered. The desk is drained.
func noteToldOnce(t *testing.T, r *voiceRig, fetched *atomic.Int32) {
	ctx := context.Background()
	d := r.desk(t, nil, nil)
	r.f.Push(fakellm.Step{Text: "It is noon."})
	d.HandleMessage(ctx, channels.Message{Chat: owner, User: owner, ID: "m1", Audio: recording("what is on my list for the weekend", true, fetched)})
	d.HandleMessage(ctx, channels.Message{Chat: owner, User: owner, ID: "m2", Text: "what time is it?"})
	waitFor(t, "the notice and the later message's answer", func() (bool, any) {
		got := r.plat.to(owner)
		return len(got) == 2, got
	})
	got := r.plat.to(owner)
	if got[0] != d.opt.NoTranscription || got[1] != "It is noon." {
		t.Fatalf("sent %q, want the notice and then the later answer", got)
	}
	w := r.waiting(t)
	if len(w) != 1 || w[0].Audio == nil || !w[0].Audio.Told {
		t.Fatalf("inbox: %+v, want only the note, marked as told", w)
	}
	d.Drain(ctx)
	if n := r.plat.typing.Load(); n == 0 {
		t.Fatalf("no typing shown for the text message")
	}
}

// restartedStillDeaf restarts twice without a transcription endpoint,
// the note told of already waiting, and returns the second desk.
func restartedStillDeaf(t *testing.T, r *voiceRig) *Desk {
	ctx := context.Background()
	// A restart still without the setting, with only the note waiting:
	// nothing is said and no "typing…" shown for it.
	r.plat.typing.Store(0)
	d := r.desk(t, nil, nil)
	if err := d.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	d.Drain(ctx)
	if got := r.plat.to(owner); len(got) != 2 || r.plat.typing.Load() != 0 {
		t.Fatalf("after a restart: sent %q, typing shown %d times; want nothing new", got[2:], r.plat.typing.Load())
	}

	// A restart still without the setting: the note is not told again,
	// and the next message is not held up by it.
	d.Drain(ctx)
	d = r.desk(t, nil, nil)
	if err := d.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	r.f.Push(fakellm.Step{Text: "Still noon."})
	d.HandleMessage(ctx, channels.Message{Chat: owner, User: owner, ID: "m3", Text: "and now?"})
	waitFor(t, "the answer after the restart", func() (bool, any) {
		got := r.plat.to(owner)
		return len(got) == 3, got
	})
	if got := r.plat.to(owner); got[2] != "Still noon." {
		t.Fatalf("after the restart: %q, want only the new answer", got[2:])
	}
	if w := r.waiting(t); len(w) != 1 || w[0].Audio == nil {
		t.Fatalf("inbox after the restart: %+v, want the note", w)
	}
	return d
}

// TestTranscribedNoteQuotedAndSpokenTurnV1A2: the answer to a voice note
// starts with a short quote of what was heard; the model reads the
// transcript with the caption as context, in a spoken turn: a skill that
// would take a written message over only joins unless it has the voice
// mark.
func TestTranscribedNoteQuotedAndSpokenTurnV1A2(t *testing.T) {
	const heard = "please put oat milk and two lemons on the shopping list"
	for _, tt := range []struct {
		name   string
		marked bool
		want   string
	}{
		{"no voice mark: joins", false, `The skill "shopping-list" may fit`},
		{"voice mark: takes over", true, `Follow the skill "shopping-list"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newVoiceRig(t)
			list := []*skills.Skill{{Name: "shopping-list", Does: skills.KindInstructions, Voice: tt.marked,
				Description: "Keeps the owner's shopping list.", Words: []string{"shopping list"}, Body: "Add items to the wiki page Shopping."}}
			r.rt.Skills = func(context.Context, string) (*skills.Ranker, error) { return skills.NewRanker(list), nil }
			var calls, fetched atomic.Int32
			d := r.desk(t, nil, func(o *Options) { o.Transcribe = hear(&calls) })
			r.f.Push(fakellm.Step{Text: "Added both."})
			d.HandleMessage(context.Background(), channels.Message{Chat: owner, User: owner, ID: "m1", Text: "for Saturday", Audio: recording(heard, true, &fetched)})
			waitFor(t, "the answer", func() (bool, any) { got := r.plat.to(owner); return len(got) == 1, got })
			if got := r.plat.to(owner)[0]; got != "🎤 \""+heard+"\"\n\nAdded both." {
				t.Errorf("answer %q, want the quote then the answer", got)
			}
			req := r.f.Requests()[0]
			user := req.Messages[len(req.Messages)-1].Text
			if !strings.HasPrefix(user, heard) || !strings.Contains(user, "for Saturday") {
				t.Errorf("the model read %q, want the transcript with the caption", user)
			}
			if !strings.Contains(req.System, tt.want) {
				t.Errorf("system prompt lacks %q:\n%s", tt.want, req.System)
			}
			waitFor(t, "the inbox to empty", func() (bool, any) { w := r.waiting(t); return len(w) == 0, w })
		})
	}
}

// TestQuoteOfWhatWasHeardV1: the quote is one line, cut at a word near
// 200 characters.
func TestQuoteOfWhatWasHeardV1(t *testing.T) {
	long := strings.Repeat("überall wächst Gras ", 30)
	for _, tt := range []struct{ in, want string }{
		{"short one", `🎤 "short one"`},
		{"  two\nlines ", `🎤 "two lines"`},
	} {
		if got := quote(tt.in); got != tt.want {
			t.Errorf("quote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	q := quote(long)
	inner := strings.TrimSuffix(strings.TrimPrefix(q, `🎤 "`), `"`)
	if n := utf8.RuneCountInString(inner); n > 201 || n < 150 || !strings.HasSuffix(inner, "…") {
		t.Errorf("quote of a long transcript: %q (%d characters)", q, n)
	}
	if body := strings.TrimSuffix(inner, "…"); !strings.HasPrefix(long, body+" ") {
		t.Errorf("the quote is not cut at a word: %q", q)
	}
}

// TestEmptyTranscriptV1: a note in which nothing was heard gets a plain
// answer and no turn.
func TestEmptyTranscriptV1(t *testing.T) {
	r := newVoiceRig(t)
	var calls, fetched atomic.Int32
	d := r.desk(t, nil, func(o *Options) { o.Transcribe = hear(&calls) })
	d.HandleMessage(context.Background(), channels.Message{Chat: owner, User: owner, ID: "m1", Audio: recording("  \n ", true, &fetched)})
	waitFor(t, "the answer", func() (bool, any) { got := r.plat.to(owner); return len(got) == 1, got })
	if got := r.plat.to(owner)[0]; got != "I could not hear any words in that voice note." {
		t.Errorf("answer %q", got)
	}
	waitFor(t, "the inbox to empty", func() (bool, any) { w := r.waiting(t); return len(w) == 0, w })
	if n := len(r.f.Requests()); n != 0 {
		t.Errorf("%d model calls for an empty note", n)
	}
}

// TestTranscriptionErrorKeepsNoteV1: a failed transcription is said once
// and the note kept for the next start; the chat goes on.
func TestTranscriptionErrorKeepsNoteV1(t *testing.T) {
	r := newVoiceRig(t)
	ctx := context.Background()
	var fetched atomic.Int32
	d := r.desk(t, nil, func(o *Options) {
		o.Transcribe = func(context.Context, []byte, string, string) (string, error) {
			return "", errors.New("the transcription endpoint answered 503 Service Unavailable")
		}
	})
	r.f.Push(fakellm.Step{Text: "Hello."})
	d.HandleMessage(ctx, channels.Message{Chat: owner, User: owner, ID: "m1", Audio: recording("call the plumber", true, &fetched)})
	d.HandleMessage(ctx, channels.Message{Chat: owner, User: owner, ID: "m2", Text: "hi"})
	waitFor(t, "both answers", func() (bool, any) { got := r.plat.to(owner); return len(got) == 2, got })
	got := r.plat.to(owner)
	if !strings.Contains(got[0], "could not transcribe") || !strings.Contains(got[0], "503") || !strings.Contains(got[0], "kept") || got[1] != "Hello." {
		t.Errorf("sent %q", got)
	}
	if w := r.waiting(t); len(w) != 1 || w[0].Audio == nil || string(w[0].Audio.Data) != "OggScall the plumber" {
		t.Errorf("inbox: %+v, want the note kept", w)
	}
}

// TestAudioRefusedOrNotFetchedV1: a note over the length or size bound is
// refused before any download, a failed download is said; each gets one
// answer, and nothing is queued or stored.
func TestAudioRefusedOrNotFetchedV1(t *testing.T) {
	for _, tt := range []struct {
		name      string
		change    func(a *channels.Audio)
		want      []string
		wantFetch int32
	}{
		{"too long", func(a *channels.Audio) { a.Duration = 12 * time.Minute }, []string{"12 minutes", "10 minutes"}, 0},
		{"too large", func(a *channels.Audio) { a.Size = 25 << 20 }, []string{"25 MB", "20 MB"}, 0},
		{"download fails", func(a *channels.Audio) {
			a.Fetch = func(context.Context, int64) ([]byte, error) {
				return nil, errors.New("telegram: getFile: Bad Request: file is temporarily unavailable")
			}
		}, []string{"could not download", "temporarily unavailable", "send it again"}, 0},
		{"larger than it said", func(a *channels.Audio) {
			a.Fetch = func(_ context.Context, max int64) ([]byte, error) {
				return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "the voice note is larger than %d MB", max>>20)
			}
		}, []string{"larger than 20 MB"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newVoiceRig(t)
			var calls, fetched atomic.Int32
			d := r.desk(t, nil, func(o *Options) { o.Transcribe = hear(&calls) })
			a := recording("anything", true, &fetched)
			tt.change(a)
			d.HandleMessage(context.Background(), channels.Message{Chat: owner, User: owner, ID: "m1", Audio: a})
			got := r.plat.to(owner)
			if len(got) != 1 {
				t.Fatalf("sent %q, want one answer", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("answer %q lacks %q", got[0], w)
				}
			}
			if fetched.Load() != tt.wantFetch {
				t.Errorf("fetched %d times, want %d", fetched.Load(), tt.wantFetch)
			}
			if w := r.waiting(t); len(w) != 0 {
				t.Errorf("stored %+v", w)
			}
			d.Drain(context.Background())
			if calls.Load() != 0 || len(r.f.Requests()) != 0 {
				t.Errorf("%d transcriptions, %d model calls for a refused note", calls.Load(), len(r.f.Requests()))
			}
		})
	}
}

// TestStrangersAudioNeverFetchedCH1: a stranger's voice note is refused
// like any message of theirs and never downloaded.
func TestStrangersAudioNeverFetchedCH1(t *testing.T) {
	r := newVoiceRig(t)
	var calls, fetched atomic.Int32
	d := r.desk(t, nil, func(o *Options) { o.Transcribe = hear(&calls) })
	d.HandleMessage(context.Background(), channels.Message{Chat: "test:9", User: "test:9", ID: "m1", Audio: recording("let me in", true, &fetched)})
	if got := r.plat.to("test:9"); len(got) != 1 || !strings.Contains(got[0], "private assistant") {
		t.Errorf("the stranger got %q", got)
	}
	d.Drain(context.Background())
	if fetched.Load() != 0 || calls.Load() != 0 || len(r.waiting(t)) != 0 {
		t.Errorf("a stranger's note: fetched %d, transcribed %d, inbox %+v", fetched.Load(), calls.Load(), r.waiting(t))
	}
}

// TestSpokenAnswerV1: an answer to a voice note is also sent as a voice
// note, after the text and in reply to the owner's note, speaking the
// answer without the quote; an audio file's answer is text only; a
// failing speech keeps the text answer.
func TestSpokenAnswerV1(t *testing.T) {
	for _, tt := range []struct {
		name      string
		voice     bool
		speak     func(context.Context, string) ([]byte, time.Duration, error)
		sendFail  error
		wantVoice bool
	}{
		{"voice note", true, speak, nil, true},
		{"audio file", false, speak, nil, false},
		{"speech fails", true, func(context.Context, string) ([]byte, time.Duration, error) {
			return nil, 0, errors.New("speech endpoint down")
		}, nil, false},
		{"voice send fails", true, speak, errors.New("platform down"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newVoiceRig(t)
			r.plat.voiceFail = tt.sendFail
			var calls, fetched atomic.Int32
			d := r.desk(t, nil, func(o *Options) { o.Transcribe, o.Speak = hear(&calls), tt.speak })
			r.f.Push(fakellm.Step{Text: "Tomorrow at nine."})
			d.HandleMessage(context.Background(), channels.Message{Chat: owner, User: owner, ID: "m7", Audio: recording("when is the dentist", tt.voice, &fetched)})
			waitFor(t, "the text answer", func() (bool, any) { got := r.plat.to(owner); return len(got) == 1, got })
			waitFor(t, "the inbox to empty", func() (bool, any) { w := r.waiting(t); return len(w) == 0, w })
			d.Drain(context.Background()) // the voice note, if any, is sent before the message is let go
			if got := r.plat.to(owner)[0]; got != "🎤 \"when is the dentist\"\n\nTomorrow at nine." {
				t.Errorf("text answer %q", got)
			}
			v := r.plat.spoken()
			if !tt.wantVoice {
				if len(v) != 0 {
					t.Errorf("voice notes sent: %+v", v)
				}
				return
			}
			if len(v) != 1 || string(v[0].OGG) != "OggS-spoken:Tomorrow at nine." || v[0].ReplyTo != "m7" || v[0].Chat != owner || v[0].textsBefore != 1 {
				t.Errorf("voice notes sent: %+v, want the answer spoken after the text, in reply to m7", v)
			}
		})
	}
}

// answeredFails is the real store whose Answered fails, as when the
// service dies after a turn and before the inbox lets the message go.
type answeredFails struct{ *sqlstore.DB }

func (answeredFails) Answered(context.Context, int64) error { return errors.New("the disk is gone") }

// TestTranscriptKeptAcrossRestartV1: what was heard is kept in the inbox
// with the message, so a restart answers it without transcribing again.
func TestTranscriptKeptAcrossRestartV1(t *testing.T) {
	r := newVoiceRig(t)
	ctx := context.Background()
	var calls, fetched atomic.Int32
	d := r.desk(t, answeredFails{r.db}, func(o *Options) { o.Transcribe = hear(&calls) })
	r.f.Push(fakellm.Step{Text: "Booked."})
	d.HandleMessage(ctx, channels.Message{Chat: owner, User: owner, ID: "m1", Audio: recording("book a table for two", true, &fetched)})
	waitFor(t, "the answer", func() (bool, any) { got := r.plat.to(owner); return len(got) == 1, got })
	d.Drain(ctx)
	w := r.waiting(t)
	if len(w) != 1 || w[0].Audio == nil || !w[0].Audio.Heard || w[0].Audio.Data != nil || !strings.HasPrefix(w[0].Text, "book a table for two") {
		t.Fatalf("inbox: %+v, want the note kept as what was heard", w)
	}
	var again atomic.Int32
	d = r.desk(t, nil, func(o *Options) { o.Transcribe = hear(&again) })
	if err := d.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the inbox to empty", func() (bool, any) { w := r.waiting(t); return len(w) == 0, w })
	if again.Load() != 0 {
		t.Errorf("transcribed again after the restart")
	}
	// Answered after the restart as the spoken message it was: what was
	// heard is quoted again.
	if got := r.plat.to(owner); len(got) != 2 || !strings.HasPrefix(got[1], "🎤 \"book a table for two\"") {
		t.Errorf("answers %q, want the restart's answer to quote what was heard", got)
	}
}

// TestNoteCaptionIsNotACommandV1: a voice note's caption is context for
// what was said, so "/help" under a note does not answer as the command.
func TestNoteCaptionIsNotACommandV1(t *testing.T) {
	r := newVoiceRig(t)
	var calls, fetched atomic.Int32
	d := r.desk(t, nil, func(o *Options) { o.Transcribe = hear(&calls) })
	r.f.Push(fakellm.Step{Text: "Here is how."})
	d.HandleMessage(context.Background(), channels.Message{Chat: owner, User: owner, ID: "m1", Text: "/help", Audio: recording("how do I reset the router", true, &fetched)})
	waitFor(t, "the answer", func() (bool, any) { got := r.plat.to(owner); return len(got) == 1, got })
	if got := r.plat.to(owner)[0]; got != "🎤 \"how do I reset the router\"\n\nHere is how." {
		t.Errorf("answer %q, want the note answered", got)
	}
}

// blockedHearing is a transcription that waits until its context ends,
// saying when it began.
func blockedHearing(began chan<- struct{}) func(context.Context, []byte, string, string) (string, error) {
	return func(ctx context.Context, _ []byte, _, _ string) (string, error) {
		began <- struct{}{}
		<-ctx.Done()
		return "", fmt.Errorf("transcribing: %w", ctx.Err())
	}
}

// transcribing starts a desk whose transcription of the owner's note
// (saying said) has begun and blocks until its context ends.
func transcribing(t *testing.T, said string) (*voiceRig, *Desk) {
	t.Helper()
	r := newVoiceRig(t)
	began := make(chan struct{}, 1)
	var fetched atomic.Int32
	d := r.desk(t, nil, func(o *Options) { o.Transcribe = blockedHearing(began) })
	d.HandleMessage(context.Background(), channels.Message{Chat: owner, User: owner, ID: "m1", Audio: recording(said, true, &fetched)})
	awaitSignal(t, began, "the transcription to begin")
	return r, d
}

// TestTranscriptionStoppedV1: a transcription the shutdown stops leaves
// the note in the inbox for the next start, unsaid; one the owner stops
// with /cancel is said to be stopped and let go, as a text message is.
func TestTranscriptionStoppedV1(t *testing.T) {
	ctx := context.Background()
	t.Run("shutdown", func(t *testing.T) {
		r, d := transcribing(t, "water the plants")
		late, cancel := context.WithCancel(ctx)
		cancel() // the deadline has passed: Drain stops the transcription
		d.Drain(late)
		if got := r.plat.to(owner); len(got) != 0 {
			t.Errorf("sent %q during the shutdown", got)
		}
		if w := r.waiting(t); len(w) != 1 || w[0].Audio == nil {
			t.Fatalf("inbox: %+v, want the note kept", w)
		}
		var calls atomic.Int32
		d = r.desk(t, nil, func(o *Options) { o.Transcribe = hear(&calls) })
		r.f.Push(fakellm.Step{Text: "Done."})
		if err := d.Resume(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the answer after the restart", func() (bool, any) { got := r.plat.to(owner); return len(got) == 1, got })
		if got := r.plat.to(owner)[0]; got != "🎤 \"water the plants\"\n\nDone." {
			t.Errorf("answer %q", got)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		r, d := transcribing(t, "never mind")
		d.HandleMessage(ctx, channels.Message{Chat: owner, User: owner, ID: "m2", Text: "/cancel"})
		waitFor(t, "the stop", func() (bool, any) { got := r.plat.to(owner); return len(got) == 1, got })
		if got := r.plat.to(owner)[0]; got != "Stopped." {
			t.Errorf("answer %q", got)
		}
		waitFor(t, "the inbox to empty", func() (bool, any) { w := r.waiting(t); return len(w) == 0, w })
	})
}

// awaitSignal waits for a signal, failing the test after 10 s.
func awaitSignal(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatalf("waited 10 s for %s", what)
	}
}
