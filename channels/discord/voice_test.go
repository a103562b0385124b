package discord

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakediscord"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

// oggLike is n bytes that start as an Ogg page does; the adapter carries
// audio without reading it, so no real recording is needed here.
func oggLike(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	copy(b, "OggS")
	return b
}

// hearRecordings runs a bot, lets send post the owner's recordings to
// the bot's DM, and returns what it heard before the owner's "end", which
// must be n messages.
func hearRecordings(t *testing.T, n int, send func(srv *fakediscord.Server, dm string)) (*fakediscord.Server, []channels.Message) {
	t.Helper()
	h := &recorder{}
	srv, _ := running(t, h)
	dm := srv.DMChannel(owner)
	send(srv, dm)
	srv.SendText(dm, owner, "end")
	got := heard(t, h, "end")
	if len(got) != n {
		t.Fatalf("heard %+v, want %d recordings", got, n)
	}
	return srv, got
}

// heard waits until the handler has heard a message with text last; the
// gateway delivers in order, so every message sent before it that the
// bot took is there too. It returns the messages before it.
func heard(t *testing.T, h *recorder, last string) []channels.Message {
	t.Helper()
	eventually(t, "the message "+last, func() (bool, any) {
		ms := h.messages()
		return slices.ContainsFunc(ms, func(m channels.Message) bool { return m.Text == last }), ms
	})
	ms := h.messages()
	return ms[:len(ms)-1]
}

// TestVoiceAndAudioArriveAsAudioV1: a voice message (flag 1<<13, one
// audio/ogg attachment with duration_secs) and an audio attachment become
// messages with Audio, text or not; in a guild channel only when they
// address the bot, as text does; a file that is not audio comes as a File
// (CH4), never as Audio.
func TestVoiceAndAudioArriveAsAudioV1(t *testing.T) {
	t.Parallel()
	h := &recorder{}
	srv, b := running(t, h)
	dm := srv.DMChannel(owner)
	bot := "<@" + srv.BotID() + ">"
	asked, err := b.Send(t.Context(), channels.Outgoing{Chat: "discord:" + guildChan, Text: "What shall I buy?"})
	if err != nil {
		t.Fatal(err)
	}

	voice := oggLike(t, 3000)
	mp3 := oggLike(t, 5000)
	srv.SendVoice(guildChan, owner, voice, 9) // addresses no one: dropped as text would be
	srv.SendAudio(guildChan, owner, "", "song.mp3", "audio/mpeg", mp3)
	srv.SendAudio(dm, owner, "", "notes.txt", "text/plain", []byte("not audio"))
	dmVoice := srv.SendVoice(dm, owner, voice, 2.5)
	reply := srv.Post(guildChan, owner, fakediscord.UserMessage{ReplyTo: asked, Voice: true, Attachments: []fakediscord.Attachment{
		{FileName: "voice-message.ogg", ContentType: "audio/ogg", Data: voice, Seconds: 1.25}}})
	mentioned := srv.SendAudio(guildChan, owner, bot+" what is this song?", "song.mp3", "audio/mpeg", mp3)
	dmAudio := srv.SendAudio(dm, owner, "", "memo.m4a", "audio/mp4", mp3)
	srv.SendText(dm, owner, "that is all")
	got := heard(t, h, "that is all")
	var files []channels.Message
	got = slices.DeleteFunc(got, func(m channels.Message) bool {
		if m.File != nil {
			files = append(files, m)
		}
		return m.File != nil
	})
	if len(files) != 1 || files[0].Audio != nil || files[0].File.FileName != "notes.txt" || files[0].File.MIME != "text/plain" || files[0].File.Size != 9 {
		t.Errorf("heard files %+v, want notes.txt as a file", files)
	}

	type want struct {
		chat, text, id string
		audio          channels.Audio
	}
	wants := []want{
		{"discord:" + dm, "", dmVoice, channels.Audio{Voice: true, MIME: "audio/ogg", Duration: 2500 * time.Millisecond, Size: 3000}},
		{"discord:" + guildChan, "", reply, channels.Audio{Voice: true, MIME: "audio/ogg", Duration: 1250 * time.Millisecond, Size: 3000}},
		{"discord:" + guildChan, "what is this song?", mentioned, channels.Audio{MIME: "audio/mpeg", Size: 5000, FileName: "song.mp3"}},
		{"discord:" + dm, "", dmAudio, channels.Audio{MIME: "audio/mp4", Size: 5000, FileName: "memo.m4a"}},
	}
	if len(got) != len(wants) {
		t.Fatalf("heard %d messages with audio, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		m := got[i]
		if m.Chat != w.chat || m.Text != w.text || m.ID != w.id || m.User != "discord:"+owner {
			t.Errorf("message %d = %+v, want chat %s, text %q, id %s from the owner", i, m, w.chat, w.text, w.id)
		}
		if m.Audio == nil {
			t.Errorf("message %d has no audio", i)
			continue
		}
		if m.Audio.Fetch == nil {
			t.Errorf("message %d: audio without Fetch", i)
		}
		a, wa := *m.Audio, w.audio
		a.Fetch = nil
		if a.Voice != wa.Voice || a.MIME != wa.MIME || a.Duration != wa.Duration || a.Size != wa.Size || a.FileName != wa.FileName {
			t.Errorf("message %d: audio %+v, want %+v", i, a, wa)
		}
	}
}

// TestFetchDownloadsTheExactBytesV1: Fetch gets the attachment's bytes
// from the address in the event, through the bot's HTTP client.
func TestFetchDownloadsTheExactBytesV1(t *testing.T) {
	t.Parallel()
	voice, mp3 := oggLike(t, 4096), oggLike(t, 70_000)
	srv, got := hearRecordings(t, 2, func(srv *fakediscord.Server, dm string) {
		srv.SendVoice(dm, owner, voice, 3)
		srv.SendAudio(dm, owner, "listen", "tune.mp3", "audio/mpeg", mp3)
	})
	for i, want := range [][]byte{voice, mp3} {
		// The bound may equal the size: at most max bytes is allowed.
		data, err := got[i].Audio.Fetch(t.Context(), int64(len(want)))
		if err != nil {
			t.Fatalf("Fetch %d: %v", i, err)
		}
		if !bytes.Equal(data, want) {
			t.Errorf("Fetch %d: got %d bytes, not the %d sent", i, len(data), len(want))
		}
	}
	if n := srv.Requests(fakediscord.RouteAttachment); n != 2 {
		t.Errorf("%d downloads, want 2", n)
	}
}

// TestFetchRefusesAudioOverTheBoundV1: an attachment Discord announces as
// larger than the bound is refused without downloading it; one whose
// body turns out larger than the bound is refused too; both errors are
// invalid and say the bound.
func TestFetchRefusesAudioOverTheBoundV1(t *testing.T) {
	t.Parallel()
	var small string
	srv, got := hearRecordings(t, 2, func(srv *fakediscord.Server, dm string) {
		srv.SendVoice(dm, owner, oggLike(t, 1001), 4)
		small = srv.SendVoice(dm, owner, oggLike(t, 900), 4)
	})

	_, err := got[0].Audio.Fetch(t.Context(), 1000)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "1000 bytes") {
		t.Errorf("Fetch of 1001 bytes with a bound of 1000: %v, want invalid, saying the bound", err)
	}
	if n := srv.Requests(fakediscord.RouteAttachment); n != 0 {
		t.Errorf("%d downloads of a file announced over the bound, want none", n)
	}

	// Announced as 900 bytes, it serves 5000, streamed without a length:
	// the bound holds while reading.
	srv.ReplaceAttachment(small, oggLike(t, 5000))
	_, err = got[1].Audio.Fetch(t.Context(), 1000)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Errorf("Fetch of a body larger than announced: %v, want invalid, saying the bound", err)
	}
}

// TestFetchFailureIsExplainedV1: a download Discord refuses or fails
// gives an error with a code and a sentence, never the signed link.
func TestFetchFailureIsExplainedV1(t *testing.T) {
	t.Parallel()
	srv, got := hearRecordings(t, 1, func(srv *fakediscord.Server, dm string) {
		srv.SendVoice(dm, owner, oggLike(t, 800), 1)
	})
	for _, tc := range []struct {
		status int
		code   jarvisbot.Code
		says   string
	}{
		{404, jarvisbot.ENOTFOUND, "HTTP 404"},
		{500, jarvisbot.EUNAVAILABLE, "HTTP 500"},
	} {
		srv.FailNext(fakediscord.RouteAttachment, 1, tc.status)
		_, err := got[0].Audio.Fetch(t.Context(), 1<<20)
		if jarvisbot.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("HTTP %d: %v (%s), want %s saying %q", tc.status, err, jarvisbot.ErrorCode(err), tc.code, tc.says)
		}
		if err != nil && (strings.Contains(err.Error(), "hm=") || strings.Contains(err.Error(), "/attachments/")) {
			t.Errorf("the error repeats the signed link: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := got[0].Audio.Fetch(ctx, 1<<20); err == nil {
		t.Error("Fetch with an ended context succeeded")
	}
}

// TestSendVoiceUploadsAnOggAttachmentV1: a spoken answer goes to Discord
// as an audio/ogg attachment named answer.ogg, with the caption as the
// message's text, replying to the owner's message.
func TestSendVoiceUploadsAnOggAttachmentV1(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	var _ channels.VoiceSender = b
	ogg := oggLike(t, 12_345)
	id, err := b.SendVoice(t.Context(), channels.Voice{Chat: "discord:" + guildChan, OGG: ogg,
		Duration: 3 * time.Second, Caption: "You said: **buy milk**", ReplyTo: "4242"})
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %+v, want one message", sent)
	}
	m := sent[0]
	if m.ID != id || m.ChannelID != guildChan || m.ReplyTo != "4242" || m.Content != "You said: **buy milk**" {
		t.Errorf("message = id %s in %s replying to %q with %q; want id %s in %s replying to 4242 with the caption",
			m.ID, m.ChannelID, m.ReplyTo, m.Content, id, guildChan)
	}
	if len(m.Files) != 1 {
		t.Fatalf("files = %+v, want one", m.Files)
	}
	if f := m.Files[0]; f.Name != "answer.ogg" || f.ContentType != "audio/ogg" || !bytes.Equal(f.Data, ogg) {
		t.Errorf("file %s (%s, %d bytes), want answer.ogg (audio/ogg) with the %d bytes sent", f.Name, f.ContentType, len(f.Data), len(ogg))
	}

	// Without a caption or a reply it is the attachment alone.
	if _, err := b.SendVoice(t.Context(), channels.Voice{Chat: "discord:" + guildChan, OGG: ogg}); err != nil {
		t.Fatal(err)
	}
	if m := srv.Sent()[1]; m.Content != "" || m.ReplyTo != "" || len(m.Files) != 1 {
		t.Errorf("bare voice = %+v, want the attachment alone", m)
	}
	for name, v := range map[string]channels.Voice{
		"no audio":      {Chat: "discord:" + guildChan},
		"telegram chat": {Chat: "telegram:1", OGG: ogg},
	} {
		if _, err := b.SendVoice(t.Context(), v); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
	if n := len(srv.Sent()); n != 2 {
		t.Errorf("%d messages sent, want 2", n)
	}
}

// TestAttachmentOnlyFromDiscordsFileHostCH4: a link on another host than
// Discord's CDN is refused in words, and nothing is requested.
func TestAttachmentOnlyFromDiscordsFileHostCH4(t *testing.T) {
	t.Parallel()
	_, b := running(t, &recorder{})
	fetch := b.fetcher("https://files.example.net/attachments/1/2/x.png?hm=abc", 10, `the file "x.png"`, sizelimit.Limit{What: "a file"})
	_, err := fetch(t.Context(), 1<<20)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "files.example.net, not on Discord's file host") {
		t.Errorf("a link elsewhere: %v", err)
	}
	if strings.Contains(fmt.Sprint(err), "hm=abc") {
		t.Errorf("the error shows the signed link: %v", err)
	}
}
