package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakediscord"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakespeech"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/internal/oggopus"
)

// fernCare is an owner's own skill with the voice mark: it may take a
// spoken turn over.
const fernCare = "---\nname: fern-care\ndescription: Use when the owner talks about watering the ferns on the balcony.\n" +
	"metadata:\n  jarvisbot.words: ferns, fern\n  jarvisbot.voice: \"true\"\n  jarvisbot.does: instructions\n---\n" +
	"Ferns want water twice a week; remind the owner kindly and say which day comes next.\n"

// withSpeech points transcription and speech at a fake OpenAI-compatible
// audio endpoint that wants a key.
func withSpeech(t *testing.T, e *testEnv) *fakespeech.Server {
	t.Helper()
	sp := fakespeech.New(t)
	sp.RequireKey("test-audio-key")
	e.vars["JARVIS_TRANSCRIPTION_BASE_URL"] = sp.BaseURL()
	e.vars["JARVIS_TRANSCRIPTION_API_KEY"] = "test-audio-key"
	return sp
}

// voiceNote waits for a voice note sent to chat and returns its bytes.
func voiceNote(t *testing.T, tg *faketelegram.Server, chat int64) []byte {
	t.Helper()
	var v []byte
	waitSent(t, tg, "a spoken answer", func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if m.ChatID == chat && len(m.Voice) > 0 {
				v = m.Voice
			}
		}
		return v != nil
	})
	return v
}

// TestVoiceNoteEndToEndV1: the owner speaks a real sentence (espeak-ng,
// encoded to OGG/Opus) into Telegram; jarvisbot downloads it from the Bot
// API's file endpoint, the transcription endpoint receives that exact
// OGG/Opus of that length, the voice-marked skill takes the spoken turn
// over, the answer quotes what was heard, and a spoken answer follows as
// a valid OGG/Opus voice note, made from the answer's words.
func TestVoiceNoteEndToEndV1(t *testing.T) {
	const said = "the ferns on the balcony look dry again"
	note := fakespeech.Spoken(t, said)
	info, err := oggopus.Check(note)
	if err != nil {
		t.Fatal(err)
	}
	e, f, tg := ownerOnTelegram(t)
	sp := withSpeech(t, e)
	sp.PushText(said)
	answerVoice := fakespeech.Spoken(t, "the ferns get water on friday")
	sp.SetSpeech(answerVoice, "audio/ogg")
	dir := filepath.Join(e.vars["JARVIS_DATA_DIR"], "skills", "fern-care")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(fernCare), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")

	f.Push(fakellm.Step{Text: "Give them a **good soak** on Friday."})
	tg.SendVoice(42, 42, note, info.Duration)
	waitSent(t, tg, "the answer quoting what was heard", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, `"`+said+`"`) && hasText(s, 42, "good soak")
	})
	got := voiceNote(t, tg, 42)
	if !bytes.Equal(got, answerVoice) {
		t.Errorf("the spoken answer is not the speech endpoint's voice note (%d bytes)", len(got))
	}
	if _, err := oggopus.Check(got); err != nil {
		t.Errorf("the spoken answer is no valid OGG/Opus: %v", err)
	}

	tr := sp.Transcriptions()
	if len(tr) != 1 {
		t.Fatalf("%d transcriptions", len(tr))
	}
	if !bytes.Equal(tr[0].Audio, note) || tr[0].Duration != info.Duration || tr[0].Key != "test-audio-key" || tr[0].Model != "whisper-1" {
		t.Errorf("the endpoint got %d bytes of %s (want %d of %s), key %q, model %q", len(tr[0].Audio), tr[0].Duration, len(note), info.Duration, tr[0].Key, tr[0].Model)
	}
	reqs := f.Requests()
	if sys := reqs[len(reqs)-1].System; !strings.Contains(sys, `Follow the skill "fern-care"`) {
		t.Errorf("the voice-marked skill did not take the spoken turn over:\n%s", sys)
	}
	sps := sp.Speeches()
	if len(sps) != 1 || sps[0].Input != "Give them a good soak on Friday." || sps[0].Format != "opus" {
		t.Errorf("speech asked for %+v, want the answer's words as OGG/Opus", sps)
	}
	if strings.Contains(out.String(), "test-audio-key") {
		t.Error("the audio endpoint's key is in the log")
	}
}

// TestVoiceNoteWaitsForTranscriptionV1: without a transcription endpoint
// a voice note gets one answer saying what to set, and is kept: once the
// endpoint is set and jarvisbot restarted, it is heard and answered.
func TestVoiceNoteWaitsForTranscriptionV1(t *testing.T) {
	const said = "what time does the bakery open"
	note := fakespeech.Spoken(t, said)
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_VOICE_REPLY"] = "never"
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	tg.SendVoice(42, 42, note, 0)
	waitSent(t, tg, "what to set", func(s []faketelegram.Sent) bool { return hasText(s, 42, "transcription.base_url") })
	stop()

	sp := withSpeech(t, e)
	sp.PushText(said)
	f.Push(fakellm.Step{Text: "It opens at seven."})
	out, stop = startServe(t, e)
	defer stop()
	waitSent(t, tg, "the kept note answered", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, `"`+said+`"`) && hasText(s, 42, "It opens at seven.")
	})
	told := 0
	for _, m := range tg.Sent() {
		if len(m.Voice) > 0 {
			t.Error("a spoken answer was sent with voice.reply never")
		}
		if strings.Contains(m.Text, "transcription.base_url") {
			told++
		}
	}
	if told != 1 {
		t.Errorf("told what to set %d times, want once", told)
	}
	if n := len(sp.Transcriptions()); n != 1 {
		t.Errorf("%d transcriptions after the restart, want 1", n)
	}
}

// TestDiscordVoiceMessageV1: a voice message in the owner's Discord DM is
// downloaded from its attachment link, heard, answered with the quote, and
// the spoken answer comes back as an OGG/Opus attachment.
func TestDiscordVoiceMessageV1(t *testing.T) {
	const said = "add bread to the shopping list"
	note := fakespeech.Spoken(t, said)
	e := newTestEnv(t)
	f := withModel(t, e)
	dc := fakediscord.New(t)
	dc.OwnAddressLinks = true // reached as discord.api_base, which forwards the API host only
	e.vars["DISCORD_BOT_TOKEN"], e.vars["JARVIS_DISCORD_API_BASE"] = dc.Token(), dc.URL()
	e.vars["JARVIS_DISCORD_OWNERS"] = "777"
	sp := withSpeech(t, e)
	sp.PushText(said)
	spoken := fakespeech.Spoken(t, "bread is on the list")
	sp.SetSpeech(spoken, "audio/ogg")
	out, stop := startServe(t, e)
	defer stop()
	if !dc.WaitConnected(1, 10*time.Second) {
		t.Fatalf("no gateway session:\n%s", out.String())
	}
	dm := dc.DMChannel("777")
	f.Push(fakellm.Step{Text: "Bread is on the list."})
	dc.SendVoice(dm, "777", note, 2.5)
	var attached []byte
	waitFor(t, "the answer and its voice on Discord", func() (bool, any) {
		sent := dc.Sent()
		quoted := false
		for _, m := range sent {
			quoted = quoted || (m.ChannelID == dm && strings.Contains(m.Content, `"`+said+`"`) && strings.Contains(m.Content, "Bread is on the list."))
			for _, file := range m.Files {
				if m.ChannelID == dm && file.ContentType == "audio/ogg" {
					attached = file.Data
				}
			}
		}
		return quoted && attached != nil, sent
	})
	if !bytes.Equal(attached, spoken) {
		t.Errorf("the attachment is not the spoken answer (%d bytes)", len(attached))
	}
	if tr := sp.Transcriptions(); len(tr) != 1 || !bytes.Equal(tr[0].Audio, note) {
		t.Errorf("the endpoint did not get the voice message's bytes: %d transcriptions", len(tr))
	}
}
