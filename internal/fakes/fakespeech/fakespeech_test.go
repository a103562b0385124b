package fakespeech_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakespeech"
)

// post sends one transcription form as any client would.
func post(t *testing.T, url string, file []byte, name string) (int, string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.WriteField("model", "whisper-1"); err != nil {
		t.Fatal(err)
	}
	fw, err := w.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(file); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(url+"/audio/transcriptions", w.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestFakeRefusesAnUploadThatIsNotOGGOpus_V1(t *testing.T) {
	fake := fakespeech.New(t)
	mp3 := []byte("ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x00")
	status, body := post(t, fake.BaseURL(), mp3, "note.mp3")
	if status != http.StatusBadRequest || !strings.Contains(body, "not a valid OGG/Opus") {
		t.Errorf("an MP3 upload got %d %s; want 400 naming OGG/Opus", status, body)
	}
	fake.AcceptAnyAudio(true)
	fake.PushText("taken")
	if status, body := post(t, fake.BaseURL(), mp3, "note.mp3"); status != http.StatusOK || !strings.Contains(body, `"text":"taken"`) {
		t.Errorf("with AcceptAnyAudio the MP3 got %d %s", status, body)
	}
	got := fake.Transcriptions()
	if len(got) != 2 || got[1].FileName != "note.mp3" || got[1].Model != "whisper-1" || got[1].Duration != 0 {
		t.Errorf("recorded %+v", got)
	}
}

func TestFakeTranscribesSpokenOGGAndTimesIt_V1(t *testing.T) {
	audio := fakespeech.Spoken(t, "Testing one two three.")
	fake := fakespeech.New(t)
	if status, body := post(t, fake.BaseURL(), audio, "voice.ogg"); status != http.StatusOK || !strings.Contains(body, fakespeech.DefaultText) {
		t.Fatalf("got %d %s", status, body)
	}
	if d := fake.Transcriptions()[0].Duration; d <= 0 {
		t.Errorf("recorded duration %v", d)
	}
}
