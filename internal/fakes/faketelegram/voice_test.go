package faketelegram

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

type fileAnswer struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	MimeType     string `json:"mime_type"`
	FileSize     *int64 `json:"file_size"`
	FileName     string `json:"file_name"`
	FilePath     string `json:"file_path"`
}

func download(t *testing.T, base, tok, path string) (int, []byte) {
	t.Helper()
	return restapi.Call(t, http.MethodGet, base+"/file/bot"+tok+"/"+path, "", "")
}

// TestVoiceAndAudioUpdatesServeTheirFilesV1: a voice note and an audio
// file arrive as updates with Telegram's fields; getFile names a path the
// file endpoint serves with the exact bytes, to the right token only.
func TestVoiceAndAudioUpdatesServeTheirFilesV1(t *testing.T) {
	t.Parallel()
	s := New(t, token)
	ogg := []byte("OggS\x00voice bytes")
	mp3 := []byte("ID3 audio bytes, a little longer")
	s.SendVoice(1, 2, ogg, 2500*time.Millisecond)
	s.SendAudio(1, 2, mp3, "audio/mpeg", "talk.mp3", 61*time.Second)
	s.SendMedia(1, 2, Media{Kind: "voice", Data: ogg, Caption: "listen", Size: -1})

	_, a := post(t, s.URL, token, "getUpdates", nil)
	var ups []struct {
		Message struct {
			Caption string      `json:"caption"`
			Voice   *fileAnswer `json:"voice"`
			Audio   *fileAnswer `json:"audio"`
		} `json:"message"`
	}
	if err := json.Unmarshal(a.Result, &ups); err != nil || len(ups) != 3 {
		t.Fatalf("%v: %s", err, a.Result)
	}
	v, au, bare := ups[0].Message.Voice, ups[1].Message.Audio, ups[2].Message
	if v == nil || v.Duration != 3 || v.MimeType != "audio/ogg" || v.FileSize == nil || *v.FileSize != int64(len(ogg)) || v.FileID == "" || v.FileUniqueID == "" {
		t.Errorf("voice: %+v", v)
	}
	if au == nil || au.Duration != 61 || au.MimeType != "audio/mpeg" || au.FileName != "talk.mp3" || *au.FileSize != int64(len(mp3)) {
		t.Errorf("audio: %+v", au)
	}
	if bare.Voice == nil || bare.Voice.FileSize != nil || bare.Caption != "listen" {
		t.Errorf("voice with caption and no size: %+v", bare)
	}

	for _, tc := range []struct {
		id   string
		want []byte
	}{{v.FileID, ogg}, {au.FileID, mp3}} {
		_, a := post(t, s.URL, token, "getFile", url.Values{"file_id": {tc.id}})
		var f fileAnswer
		json.Unmarshal(a.Result, &f)
		if !a.OK || f.FilePath == "" || f.FileID != tc.id {
			t.Fatalf("getFile %s: %+v", tc.id, a)
		}
		if status, body := download(t, s.URL, token, f.FilePath); status != 200 || !bytes.Equal(body, tc.want) {
			t.Errorf("download %s: %d %q", f.FilePath, status, body)
		}
		if status, _ := download(t, s.URL, "42:other", f.FilePath); status != http.StatusNotFound {
			t.Errorf("download with a wrong token: %d, want 404", status)
		}
	}
	if status, _ := download(t, s.URL, token, "voice/missing.oga"); status != http.StatusNotFound {
		t.Errorf("missing file: %d", status)
	}
	if n := s.Calls("file"); n != 3 {
		t.Errorf("%d downloads counted, want 3 with the right token", n)
	}
	if _, a := post(t, s.URL, token, "getFile", url.Values{"file_id": {"nope"}}); a.OK || a.ErrorCode != 400 {
		t.Errorf("unknown file_id: %+v", a)
	}
}

// TestGetFileRefusesAFileAboveTheBotLimitV1: Telegram hands bots files of
// at most 20 MB; the fake's FileLimit plays that limit.
func TestGetFileRefusesAFileAboveTheBotLimitV1(t *testing.T) {
	t.Parallel()
	s := New(t, token)
	s.FileLimit = 4
	s.SendVoice(1, 2, []byte("12345"), time.Second)
	_, a := post(t, s.URL, token, "getUpdates", nil)
	var ups []struct {
		Message struct {
			Voice fileAnswer `json:"voice"`
		} `json:"message"`
	}
	json.Unmarshal(a.Result, &ups)
	if _, a := post(t, s.URL, token, "getFile", url.Values{"file_id": {ups[0].Message.Voice.FileID}}); a.OK || a.Description != "Bad Request: file is too big" {
		t.Errorf("%+v", a)
	}
}

// TestSendVoiceRecordsTheUploadV1: a multipart sendVoice is recorded with
// its bytes, caption, duration and reply, and its file can be fetched.
func TestSendVoiceRecordsTheUploadV1(t *testing.T) {
	t.Parallel()
	s := New(t, token)
	ogg := []byte("OggS\x00\x02spoken answer")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range map[string]string{"chat_id": "5", "caption": "“what time is it”", "duration": "4", "reply_to_message_id": "9"} {
		mw.WriteField(k, v)
	}
	part, _ := mw.CreateFormFile("voice", "voice.ogg")
	part.Write(ogg)
	mw.Close()
	resp, err := http.Post(s.URL+"/bot"+token+"/sendVoice", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	var a answer
	json.NewDecoder(resp.Body).Decode(&a)
	resp.Body.Close()
	var msg struct {
		MessageID int        `json:"message_id"`
		Caption   string     `json:"caption"`
		Voice     fileAnswer `json:"voice"`
	}
	json.Unmarshal(a.Result, &msg)
	if !a.OK || msg.Caption != "“what time is it”" || msg.Voice.Duration != 4 {
		t.Fatalf("%+v", a)
	}
	sent := s.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %+v", sent)
	}
	got := sent[0]
	if got.Method != "sendVoice" || got.ChatID != 5 || got.MessageID != msg.MessageID || !bytes.Equal(got.Voice, ogg) ||
		got.Caption != "“what time is it”" || got.Duration != 4 || got.ReplyTo != 9 || got.FileID != msg.Voice.FileID {
		t.Errorf("recorded %+v", got)
	}
	_, fa := post(t, s.URL, token, "getFile", url.Values{"file_id": {got.FileID}})
	var f fileAnswer
	json.Unmarshal(fa.Result, &f)
	if status, b := download(t, s.URL, token, f.FilePath); status != 200 || !bytes.Equal(b, ogg) {
		t.Errorf("the sent voice downloads as %d %q", status, b)
	}
	// Resending by file_id works; a voice message has no text to edit.
	if _, a := post(t, s.URL, token, "sendVoice", url.Values{"chat_id": {"5"}, "voice": {got.FileID}}); !a.OK {
		t.Errorf("resend by file_id: %+v", a)
	}
	if _, a := post(t, s.URL, token, "sendVoice", url.Values{"chat_id": {"5"}}); a.OK || a.ErrorCode != 400 {
		t.Errorf("no voice: %+v", a)
	}
	if _, a := post(t, s.URL, token, "editMessageText", url.Values{"chat_id": {"5"}, "message_id": {itoa(got.MessageID)}, "text": {"x"}}); a.OK {
		t.Errorf("edited the text of a voice message: %+v", a)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
