package speech_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/speech"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakespeech"
	"github.com/jarvisbot/jarvisbot/internal/oggopus"
)

const key = "sk-test-Zq8vR2mW9xK4pL7n"

// note is a real voice note (espeak-ng + opusenc) kept in the repository,
// so these tests run without the tools; Spoken makes fresh ones.
func note(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../internal/oggopus/testdata/voicenote.ogg")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func transcriber(t *testing.T, fake *fakespeech.Server, apiKey string) *speech.Transcriber {
	t.Helper()
	tr, err := speech.NewTranscriber(speech.Endpoint{BaseURL: fake.BaseURL(), APIKey: apiKey, Model: "whisper-1"})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func speaker(t *testing.T, fake *fakespeech.Server) *speech.Speaker {
	t.Helper()
	sp, err := speech.NewSpeaker(speech.Endpoint{BaseURL: fake.BaseURL(), APIKey: key, Model: "tts-1"}, "alloy")
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// noKey fails the test when err's text holds the key or a piece of it.
func noKey(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, piece := range []string{key, key[:8], key[len(key)-6:]} {
		if strings.Contains(err.Error(), piece) {
			t.Errorf("error shows the key (%q): %v", piece, err)
		}
	}
}

func TestTranscribeSendsTheSpokenNoteAndModel_V1(t *testing.T) {
	audio := fakespeech.Spoken(t, "Please book the car for its service next Tuesday.")
	fake := fakespeech.New(t)
	fake.PushText("  book the car for its service next tuesday \n")
	got, err := transcriber(t, fake, key).Transcribe(context.Background(), audio, "audio/ogg", "")
	if err != nil {
		t.Fatalf("Transcribe: %v", err)
	}
	if got != "book the car for its service next tuesday" {
		t.Errorf("Transcribe = %q, want the scripted text trimmed", got)
	}
	calls := fake.Transcriptions()
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	c := calls[0]
	info, err := oggopus.Check(audio)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "whisper-1" || c.FileName != "voice-note.ogg" || c.MIME != "audio/ogg" || !bytes.Equal(c.Audio, audio) || c.Duration != info.Duration {
		t.Errorf("the endpoint got model %q, file %q (%s), %d bytes of %v; want whisper-1, voice-note.ogg (audio/ogg), %d bytes of %v",
			c.Model, c.FileName, c.MIME, len(c.Audio), c.Duration, len(audio), info.Duration)
	}
	if c.Key != key {
		t.Errorf("the endpoint got key %q, want the configured one as bearer", c.Key)
	}
	if c.Fields["response_format"] != "json" {
		t.Errorf("response_format %q, want json", c.Fields["response_format"])
	}
}

func TestTranscribeWithoutKeySendsNoneEvenWithOpenAIKeyInEnvironment_V1(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-model-key-must-stay-home")
	fake := fakespeech.New(t)
	if _, err := transcriber(t, fake, "").Transcribe(context.Background(), note(t), "audio/ogg", ""); err != nil {
		t.Fatalf("Transcribe: %v", err)
	}
	if k := fake.Transcriptions()[0].Key; k != "" {
		t.Errorf("a local endpoint with no key configured got the bearer %q", k)
	}
}

func TestTranscribeErrorsSayWhatToDoAndNeverTheKey_V1(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	cases := []struct {
		name     string
		setup    func(f *fakespeech.Server)
		apiKey   string
		base     string // overrides the fake's
		code     jarvisbot.Code
		mentions []string
	}{
		{"key refused", func(f *fakespeech.Server) { f.RequireKey("sk-the-right-one") }, key, "",
			jarvisbot.EINVALID, []string{"refused the API key", "jarvisbot secrets set JARVIS_TRANSCRIPTION_API_KEY", "401"}},
		{"key missing", func(f *fakespeech.Server) { f.RequireKey("sk-the-right-one") }, "", "",
			jarvisbot.EINVALID, []string{"none is set", "jarvisbot secrets set JARVIS_TRANSCRIPTION_API_KEY"}},
		{"unreachable", func(*fakespeech.Server) {}, key, closed.URL + "/v1",
			jarvisbot.EUNAVAILABLE, []string{"cannot be reached", "transcription.base_url", "JARVIS_TRANSCRIPTION_BASE_URL", "connection refused"}},
		{"too large", func(f *fakespeech.Server) { f.SetMaxUpload(1000) }, key, "",
			jarvisbot.EINVALID, []string{"413", "nothing this large", "Maximum content size"}},
		{"server fails", func(f *fakespeech.Server) { f.FailNext(2, 503, "the model is loading") }, key, "",
			jarvisbot.EUNAVAILABLE, []string{"503 Service Unavailable", "the model is loading", "try again later"}},
		{"wrong path", func(f *fakespeech.Server) { f.FailNext(1, 404, "no route") }, key, "",
			jarvisbot.EINVALID, []string{"404 Not Found", "ends in /v1", "transcription.base_url"}},
		{"not a voice note", func(f *fakespeech.Server) { f.FailNext(1, 400, "Invalid file format.") }, key, "",
			jarvisbot.EINVALID, []string{"400 Bad Request", "Invalid file format."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := fakespeech.New(t)
			c.setup(fake)
			base := fake.BaseURL()
			if c.base != "" {
				base = c.base
			}
			tr, err := speech.NewTranscriber(speech.Endpoint{BaseURL: base, APIKey: c.apiKey, Model: "whisper-1"})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = tr.Transcribe(context.Background(), note(t), "audio/ogg", "")
			if err == nil {
				t.Fatal("Transcribe succeeded")
			}
			if got := jarvisbot.ErrorCode(err); got != c.code {
				t.Errorf("code %s, want %s: %v", got, c.code, err)
			}
			for _, m := range c.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
			noKey(t, err)
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("failing took %v; one retry at most should make it fast", d)
			}
		})
	}
}

func TestTranscribeRetriesAServerErrorOnce_V1(t *testing.T) {
	fake := fakespeech.New(t)
	fake.FailNext(1, 500, "hiccup")
	fake.PushText("heard on the second try")
	got, err := transcriber(t, fake, key).Transcribe(context.Background(), note(t), "audio/ogg", "")
	if err != nil || got != "heard on the second try" {
		t.Fatalf("Transcribe = %q, %v", got, err)
	}
	if n := len(fake.Transcriptions()); n != 2 {
		t.Errorf("%d calls, want 2 (one retry)", n)
	}
}

func TestTranscribeHasADeadline_V1(t *testing.T) {
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so the server notices the client leave
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(release) }) // runs first
	tr, err := speech.NewTranscriber(speech.Endpoint{BaseURL: hung.URL + "/v1", Model: "whisper-1", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Transcribe(context.Background(), note(t), "audio/ogg", "")
	if err == nil || !strings.Contains(err.Error(), "did not answer within 300ms") || jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Fatalf("Transcribe against a hung server: %v", err)
	}
	// The caller's own cancel is the caller's, not the endpoint's fault.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.Transcribe(ctx, note(t), "audio/ogg", ""); err != context.Canceled {
		t.Errorf("Transcribe with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestTranscribeOtherAudioGetsItsExtension_V1(t *testing.T) {
	fake := fakespeech.New(t)
	fake.AcceptAnyAudio(true)
	mp3 := append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{0xff, 0xfb, 0x90, 0x00}, 64)...)
	if _, err := transcriber(t, fake, key).Transcribe(context.Background(), mp3, "audio/mpeg", "../My Song (live).MP3"); err != nil {
		t.Fatal(err)
	}
	if c := fake.Transcriptions()[0]; c.FileName != "My-Song-live.mp3" || c.MIME != "audio/mpeg" {
		t.Errorf("uploaded as %q (%s), want My-Song-live.mp3 (audio/mpeg)", c.FileName, c.MIME)
	}
}

func TestTranscribeBoundsTheAnswer_V1(t *testing.T) {
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"text":"`)
		chunk := strings.Repeat("la ", 1<<14)
		for i := 0; i < 400; i++ { // ~19 MiB, past any transcript
			if _, err := io.WriteString(w, chunk); err != nil {
				return // the client stopped reading: the bound worked
			}
		}
		_, _ = io.WriteString(w, `"}`)
	}))
	t.Cleanup(huge.Close)
	tr, err := speech.NewTranscriber(speech.Endpoint{BaseURL: huge.URL + "/v1", Model: "whisper-1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Transcribe(context.Background(), note(t), "audio/ogg", "")
	if err == nil || !strings.Contains(err.Error(), "answered more than") {
		t.Fatalf("Transcribe of an endless answer: %v", err)
	}
}

func TestUploadName_V1(t *testing.T) {
	ogg := []byte("OggS\x00\x02")
	cases := []struct {
		mime, file string
		audio      []byte
		name, ct   string
	}{
		{"audio/ogg", "", ogg, "voice-note.ogg", "audio/ogg"},
		{"audio/ogg; codecs=opus", "", ogg, "voice-note.ogg", "audio/ogg"},
		{"audio/mpeg", "talk.mp3", nil, "talk.mp3", "audio/mpeg"},
		{"audio/x-m4a", "memo", nil, "memo.m4a", "audio/x-m4a"},
		{"audio/wav", "", nil, "voice-note.wav", "audio/wav"},
		{"", "lecture.webm", nil, "lecture.webm", "audio/webm"},
		{"application/octet-stream", "", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), "voice-note.wav", "audio/wav"},
		{"", "", []byte("fLaC"), "voice-note.flac", "audio/flac"},
		{"", "/etc/passwd", nil, "passwd.ogg", "audio/ogg"},
		{"audio/mpeg", "song.ogg", nil, "song.mp3", "audio/mpeg"},
	}
	for _, c := range cases {
		name, ct := speech.UploadName(c.audio, c.mime, c.file)
		if name != c.name || ct != c.ct {
			t.Errorf("UploadName(%q, %q) = %q, %q; want %q, %q", c.mime, c.file, name, ct, c.name, c.ct)
		}
	}
}

func TestNewEndpointChecksItsSettings_V1(t *testing.T) {
	for _, e := range []speech.Endpoint{
		{BaseURL: "", Model: "whisper-1"},
		{BaseURL: "localhost:8000/v1", Model: "whisper-1"},
		{BaseURL: "http://localhost:8000/v1", Model: ""},
	} {
		if _, err := speech.NewTranscriber(e); err == nil || jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("NewTranscriber(%+v): %v, want an EINVALID error", e, err)
		}
	}
	if _, err := speech.NewSpeaker(speech.Endpoint{BaseURL: "http://localhost:8000/v1", Model: "tts-1"}, ""); err == nil {
		t.Error("NewSpeaker without a voice succeeded")
	}
	_, err := speech.NewTranscriber(speech.Endpoint{BaseURL: "http://user:" + key + "@localhost:8000/v1?token=" + key, Model: ""})
	noKey(t, err)
}

func TestSpeakReturnsAValidVoiceNote_V1(t *testing.T) {
	fake := fakespeech.New(t)
	fake.SetSpeech(note(t), "audio/ogg")
	audio, d, err := speaker(t, fake).Speak(context.Background(), "  It is sunny and warm today.  ")
	if err != nil {
		t.Fatalf("Speak: %v", err)
	}
	info, err := oggopus.Check(audio)
	if err != nil {
		t.Fatalf("the voice note is not OGG/Opus: %v", err)
	}
	if d != info.Duration || d < time.Second {
		t.Errorf("duration %v, want the note's %v", d, info.Duration)
	}
	s := fake.Speeches()
	if len(s) != 1 || s[0].Format != "opus" || s[0].Voice != "alloy" || s[0].Model != "tts-1" || s[0].Input != "It is sunny and warm today." || s[0].Key != key {
		t.Errorf("the endpoint got %+v; want format opus, voice alloy, model tts-1, the text trimmed, the key", s)
	}
}

func TestSpeakRefusesWhatIsNotOGGOpus_V1(t *testing.T) {
	mp3 := append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{0xff, 0xfb, 0x90, 0x00}, 64)...)
	truncated := note(t)[:5000]
	cases := []struct {
		name     string
		audio    []byte
		ctype    string
		mentions []string
	}{
		{"mp3", mp3, "audio/mpeg", []string{"audio/mpeg", "MP3", `response_format "opus"`}},
		{"cut short", truncated, "audio/ogg", []string{"cut short"}},
		{"html", []byte("<html>proxy error</html>"), "text/html", []string{"text/html", "text"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := fakespeech.New(t)
			fake.SetSpeech(c.audio, c.ctype)
			audio, _, err := speaker(t, fake).Speak(context.Background(), "Hello.")
			if err == nil || audio != nil {
				t.Fatalf("Speak = %d bytes, %v; want a refusal", len(audio), err)
			}
			for _, m := range c.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
			noKey(t, err)
		})
	}
}

func TestSpeakCutsLongTextAtASentenceEnd_V1(t *testing.T) {
	fake := fakespeech.New(t)
	fake.SetSpeech(note(t), "")
	long := strings.Repeat("This sentence is here to make the answer long. ", 200) // 9,400 characters
	if _, _, err := speaker(t, fake).Speak(context.Background(), long); err != nil {
		t.Fatal(err)
	}
	in := fake.Speeches()[0].Input
	if n := utf8.RuneCountInString(in); n > speech.MaxSpoken || n < speech.MaxSpoken/2 {
		t.Errorf("spoke %d characters, want at most %d (and not much less)", n, speech.MaxSpoken)
	}
	if !strings.HasSuffix(in, "long.") {
		t.Errorf("the spoken text ends %q, not at a sentence end", in[len(in)-20:])
	}
}

func TestShorten_V1(t *testing.T) {
	cases := []struct {
		text string
		max  int
		want string
	}{
		{"  short  ", 10, "short"},
		{"One two three. Four five six.", 20, "One two three."},
		{"One. Two three four five six seven", 20, "One. Two three four"}, // a sentence end in the first half is too early
		{"One two three four five six seven", 20, "One two three four"},
		{"Onetwothreefourfivesixseven", 10, "Onetwothre"},
		{"Wie geht's dir? Gut, danke für die Nachfrage!", 28, "Wie geht's dir?"},
		{"Ends here.\nNext line goes on and on", 20, "Ends here."},
		{"Ünïcödé wörds ärë cöüntëd äs rünës", 14, "Ünïcödé wörds"},
		{"A sentence end right at the bound. x", 34, "A sentence end right at the bound."},
	}
	for _, c := range cases {
		if got := speech.Shorten(c.text, c.max); got != c.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.text, c.max, got, c.want)
		}
	}
}

func TestSpeakErrorsNameTheSpeechSettings_V1(t *testing.T) {
	fake := fakespeech.New(t)
	fake.RequireKey("sk-another")
	sp, err := speech.NewSpeaker(speech.Endpoint{BaseURL: fake.BaseURL(), APIKey: key, Model: "tts-1", KeyName: "MY_TTS_KEY"}, "alloy")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = sp.Speak(context.Background(), "Hello.")
	if err == nil || !strings.Contains(err.Error(), "the speech endpoint") || !strings.Contains(err.Error(), "jarvisbot secrets set MY_TTS_KEY") {
		t.Errorf("Speak with a refused key: %v", err)
	}
	noKey(t, err)
}
