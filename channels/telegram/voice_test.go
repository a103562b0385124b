package telegram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// hear runs b until the test ends and returns the first message it hears
// after send.
func hear(t *testing.T, b *Bot, send func()) channels.Message {
	t.Helper()
	rec := newRecorder()
	run(t, b, rec)
	send()
	return receive(t, rec.msgs)
}

// secretOf is the part of the token that must never show.
func secretOf(token string) string { return token[strings.Index(token, ":")+1:] }

// noToken fails the test when err, anything it wraps, or the log shows
// the token.
func noToken(t *testing.T, err error, log string) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), secretOf(testToken)) {
			t.Errorf("the error shows the token: %v", e)
		}
	}
	if strings.Contains(log, secretOf(testToken)) {
		t.Errorf("the log shows the token:\n%s", log)
	}
}

// TestVoiceNoteAndAudioFileArriveAsAudioV1: a voice note and an audio file
// are passed on with what Telegram said of them, the caption as text,
// instead of being dropped for having no text.
func TestVoiceNoteAndAudioFileArriveAsAudioV1(t *testing.T) {
	t.Parallel()
	ogg := []byte("OggS\x00a voice note")
	mp3 := []byte("ID3\x04an audio file")
	for _, tc := range []struct {
		name string
		send func(s *faketelegram.Server) int
		want channels.Audio
		text string
	}{
		{"voice note", func(s *faketelegram.Server) int { return s.SendVoice(42, 7, ogg, 3*time.Second) },
			channels.Audio{Voice: true, MIME: "audio/ogg", Duration: 3 * time.Second, Size: int64(len(ogg))}, ""},
		{"audio file with a caption", func(s *faketelegram.Server) int {
			return s.SendMedia(42, 7, faketelegram.Media{Kind: "audio", Data: mp3, MIME: "audio/mpeg", FileName: "memo.mp3", Duration: 95 * time.Second, Caption: "the meeting"})
		}, channels.Audio{MIME: "audio/mpeg", Duration: 95 * time.Second, Size: int64(len(mp3)), FileName: "memo.mp3"}, "the meeting"},
		{"voice note without size or type", func(s *faketelegram.Server) int {
			return s.SendMedia(42, 7, faketelegram.Media{Kind: "voice", Data: ogg, Size: -1})
		}, channels.Audio{Voice: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, b := newBot(t, Options{})
			var msgID int
			m := hear(t, b, func() { msgID = tc.send(s) })
			if m.Chat != "telegram:42" || m.User != "telegram:7" || m.ID != itoa(msgID) || m.Text != tc.text {
				t.Errorf("message = %+v", m)
			}
			if m.Audio == nil || m.Audio.Fetch == nil {
				t.Fatalf("no audio (or no Fetch): %+v", m)
			}
			got := *m.Audio
			got.Fetch = nil
			if !reflect.DeepEqual(got, tc.want) { // both Fetch nil
				t.Errorf("audio = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestFetchDownloadsFromTheBotAPIsHostV1: Fetch asks getFile and downloads
// /file/bot<token>/<path> from wherever the Bot API endpoint points,
// path prefix included (a self-hosted server behind a proxy), exactly.
func TestFetchDownloadsFromTheBotAPIsHostV1(t *testing.T) {
	t.Parallel()
	ogg := bytes.Repeat([]byte("OggS\x00\x01voice"), 300)
	for _, tc := range []struct {
		name string
		base func(s *faketelegram.Server) string
	}{
		{"base URL", func(s *faketelegram.Server) string { return s.URL }},
		{"the config's endpoint format", func(s *faketelegram.Server) string { return s.URL + "/bot%s/%s" }},
		{"behind a proxy under a path", func(s *faketelegram.Server) string {
			target, _ := url.Parse(s.URL)
			proxy := httptest.NewServer(http.StripPrefix("/tg", httputil.NewSingleHostReverseProxy(target)))
			t.Cleanup(proxy.Close)
			return proxy.URL + "/tg/bot%s/%s"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := faketelegram.New(t, testToken)
			b, err := New(t.Context(), Options{Token: testToken, BaseURL: tc.base(s)})
			if err != nil {
				t.Fatal(err)
			}
			m := hear(t, b, func() { s.SendVoice(1, 2, ogg, 2*time.Second) })
			got, err := m.Audio.Fetch(t.Context(), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, ogg) {
				t.Errorf("fetched %d bytes, not the %d sent", len(got), len(ogg))
			}
			if g, f := s.Calls("getFile"), s.Calls("file"); g != 1 || f != 1 {
				t.Errorf("getFile %d, downloads %d; want 1 and 1 on the fake", g, f)
			}
		})
	}
}

// TestFileFormatSitsBesideTheAPIEndpointV1: files come from /file/ beside
// the path segment that holds the token, wherever the endpoint is; for
// Telegram's own endpoint that is the library's file endpoint.
func TestFileFormatSitsBesideTheAPIEndpointV1(t *testing.T) {
	t.Parallel()
	for endpoint, want := range map[string]string{
		tgbotapi.APIEndpoint:                    tgbotapi.FileEndpoint,
		"http://10.0.0.5:8081/bot%s/%s":         "http://10.0.0.5:8081/file/bot%s/%s",
		"https://proxy.example/tg/api/bot%s/%s": "https://proxy.example/tg/api/file/bot%s/%s",
	} {
		if got := fileFormat(endpoint); got != want {
			t.Errorf("fileFormat(%q) = %q, want %q", endpoint, got, want)
		}
	}
}

// TestFetchRefusesAFileAboveMaxV1: a file larger than the bound is
// refused, EINVALID, naming the bound, whether Telegram said its size
// (then nothing is asked), said none, or said too little, and whether the
// download says its length or not.
func TestFetchRefusesAFileAboveMaxV1(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte{'x'}, 3000)
	for _, tc := range []struct {
		name      string
		size      int64
		client    *http.Client
		downloads int
	}{
		{"size announced", 0, nil, 0},
		{"no size announced", -1, nil, 1},
		{"size understated", 100, nil, 1},
		{"size understated, no Content-Length", 100, &http.Client{Transport: unknownLength{}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, b := newBot(t, Options{HTTPClient: tc.client})
			m := hear(t, b, func() { s.SendMedia(1, 2, faketelegram.Media{Kind: "voice", Data: data, Size: tc.size}) })
			_, err := m.Audio.Fetch(t.Context(), 1024)
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "1 KiB") {
				t.Fatalf("err = %v, want EINVALID naming the bound 1 KiB", err)
			}
			if n := s.Calls("file"); n != tc.downloads {
				t.Errorf("%d downloads, want %d", n, tc.downloads)
			}
			noToken(t, err, "")
			t.Log(err)
		})
	}
	s, b := newBot(t, Options{})
	m := hear(t, b, func() { s.SendVoice(1, 2, data, time.Second) })
	if got, err := m.Audio.Fetch(t.Context(), int64(len(data))); err != nil || len(got) != len(data) {
		t.Errorf("a file of exactly the bound: %d bytes, %v", len(got), err)
	}
}

// unknownLength hides the length of every file it downloads, as a
// chunked answer does, so only the bytes that come can tell.
type unknownLength struct{}

func (unknownLength) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && strings.HasPrefix(r.URL.Path, "/file/") {
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, err
}

// TestFetchSaysTelegramsLimitWhenGetFileRefusesV1: Telegram hands bots
// files of at most 20 MB; the error says so.
func TestFetchSaysTelegramsLimitWhenGetFileRefusesV1(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	s.FileLimit = 10
	m := hear(t, b, func() { s.SendMedia(1, 2, faketelegram.Media{Kind: "audio", Data: make([]byte, 11), Size: -1}) })
	_, err := m.Audio.Fetch(t.Context(), 1<<20)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "20 MB") {
		t.Errorf("err = %v, want EINVALID saying Telegram's 20 MB", err)
	}
	noToken(t, err, "")
}

// failFiles fails every request for a file with an error net/http wraps
// with the URL, token and all.
type failFiles struct{}

func (failFiles) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, "/file/") {
		return nil, fmt.Errorf("connection reset")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestFetchErrorsNeverShowTheTokenV1: every failing download is an error
// (and a log line) without the token that is in its URL; a 5xx is
// retried as calls are.
func TestFetchErrorsNeverShowTheTokenV1(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		client *http.Client
		fail   func(s *faketelegram.Server)
		code   jarvisbot.Code
	}{
		{"404", nil, func(s *faketelegram.Server) { s.FailNext("file", 1, 404) }, jarvisbot.EINVALID},
		{"persistent 502", nil, func(s *faketelegram.Server) { s.FailNext("file", 10, 502) }, jarvisbot.EUNAVAILABLE},
		{"no answer", &http.Client{Transport: failFiles{}}, func(*faketelegram.Server) {}, jarvisbot.EUNAVAILABLE},
		{"getFile refused", nil, func(s *faketelegram.Server) { s.FailNext("getFile", 1, 400) }, jarvisbot.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log testwait.Buffer
			s, b := newBot(t, Options{HTTPClient: tc.client, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			m := hear(t, b, func() { s.SendVoice(1, 2, []byte("OggS"), time.Second) })
			tc.fail(s)
			_, err := m.Audio.Fetch(t.Context(), 1<<20)
			if jarvisbot.ErrorCode(err) != tc.code {
				t.Errorf("err = %v, want %s", err, tc.code)
			}
			noToken(t, err, log.String())
			t.Log(err)
		})
	}
	s, b := newBot(t, Options{})
	m := hear(t, b, func() { s.SendVoice(1, 2, []byte("OggS"), time.Second) })
	s.FailNext("file", 1, 500)
	if got, err := m.Audio.Fetch(t.Context(), 1<<20); err != nil || string(got) != "OggS" {
		t.Errorf("after one 500: %q, %v", got, err)
	}
	if n := s.Calls("file"); n != 2 {
		t.Errorf("%d downloads, want 2 (one retry)", n)
	}
}

// TestSendVoiceDeliversBytesCaptionAndReplyV1: sendVoice uploads the
// OGG/Opus bytes with the caption (Markdown made HTML, as Send does),
// duration (whole seconds, rounded up) and the message it answers; a
// caption over Telegram's 1024 characters is cut, not refused.
func TestSendVoiceDeliversBytesCaptionAndReplyV1(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	var _ channels.VoiceSender = b
	ogg := bytes.Repeat([]byte("OggS\x00\x02spoken"), 200)
	id, err := b.SendVoice(t.Context(), channels.Voice{Chat: "telegram:5", OGG: ogg, Duration: 2200 * time.Millisecond, Caption: "You asked: <the weather> & more", ReplyTo: "17"})
	if err != nil {
		t.Fatal(err)
	}
	sent := s.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %+v", sent)
	}
	got := sent[0]
	if got.Method != "sendVoice" || got.ChatID != 5 || itoa(got.MessageID) != id || !bytes.Equal(got.Voice, ogg) ||
		got.Caption != "You asked: &lt;the weather&gt; &amp; more" || got.ParseMode != "HTML" || got.Duration != 3 || got.ReplyTo != 17 {
		t.Errorf("sent %+v", got)
	}
	long := strings.Repeat("é", 1100)
	if _, err := b.SendVoice(t.Context(), channels.Voice{Chat: "telegram:5", OGG: ogg, Caption: long}); err != nil {
		t.Errorf("a long caption is cut, not refused: %v", err)
	}
}

// TestSendVoiceRetriesLikeSendV1: 5xx answers are retried three times,
// then the error says so without the token.
func TestSendVoiceRetriesLikeSendV1(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	v := channels.Voice{Chat: "telegram:5", OGG: []byte("OggS")}
	s.FailNext("sendVoice", 1, 500)
	if _, err := b.SendVoice(t.Context(), v); err != nil {
		t.Fatal(err)
	}
	if n, sent := s.Calls("sendVoice"), len(s.Sent()); n != 2 || sent != 1 {
		t.Errorf("%d calls, %d sent; want 2 and 1", n, sent)
	}
	s.FailNext("sendVoice", 10, 500)
	_, err := b.SendVoice(t.Context(), v)
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || !strings.Contains(err.Error(), "500") {
		t.Errorf("err = %v", err)
	}
	if n := s.Calls("sendVoice"); n != 2+4 {
		t.Errorf("%d calls, want 2 then 1 + 3 retries", n)
	}
	noToken(t, err, "")
}

// TestSendVoiceRefusesNoAudioOrAChatThatIsNotTelegramV1.
func TestSendVoiceRefusesNoAudioOrAChatThatIsNotTelegramV1(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	for _, v := range []channels.Voice{{Chat: "telegram:5"}, {Chat: "discord:5", OGG: []byte("OggS")}} {
		if _, err := b.SendVoice(context.Background(), v); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("%+v: %v", v, err)
		}
	}
	if n := s.Calls("sendVoice"); n != 0 {
		t.Errorf("%d calls reached Telegram", n)
	}
}

// seenPaths records the path of every request a bot makes, as sent.
type seenPaths struct {
	mu    sync.Mutex
	paths []string
}

func (s *seenPaths) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.EscapedPath())
	s.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (s *seenPaths) downloads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.paths {
		if strings.Contains(p, "/file/") {
			out = append(out, p)
		}
	}
	return out
}

// TestFetchRefusesAHostileFilePathX1: a file_path from getFile that
// climbs out of the bot's file folder ("..", "."), is absolute, or is
// otherwise odd is refused, EINVALID, and nothing is requested with it:
// the request would carry the bot's token wherever the path leads.
func TestFetchRefusesAHostileFilePathX1(t *testing.T) {
	t.Parallel()
	for _, path := range []string{
		"../../bot" + testToken + "/getMe",
		"voice/../../../etc/passwd",
		"voice/./file_1.oga",
		"/var/lib/telegram-bot-api/" + testToken + "/voice/file_1.oga",
		"voice//file_1.oga",
		`voice\..\..\secret`,
		"voice/file\x00.oga",
		"..",
	} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			seen := &seenPaths{}
			s, b := newBot(t, Options{HTTPClient: &http.Client{Transport: seen}})
			m := hear(t, b, func() { s.SendMedia(1, 2, faketelegram.Media{Kind: "voice", Data: []byte("OggS"), Path: path}) })
			_, err := m.Audio.Fetch(t.Context(), 1<<20)
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "refused") {
				t.Errorf("err = %v, want EINVALID saying the path was refused", err)
			}
			if d := seen.downloads(); len(d) != 0 {
				t.Errorf("downloads were requested with the hostile path: %q", d)
			}
			noToken(t, err, "")
		})
	}
	// A plain path still downloads.
	seen := &seenPaths{}
	s, b := newBot(t, Options{HTTPClient: &http.Client{Transport: seen}})
	m := hear(t, b, func() {
		s.SendMedia(1, 2, faketelegram.Media{Kind: "voice", Data: []byte("OggS"), Path: "voice/file_7.oga"})
	})
	if got, err := m.Audio.Fetch(t.Context(), 1<<20); err != nil || string(got) != "OggS" {
		t.Errorf("a plain path: %q, %v", got, err)
	}
}
