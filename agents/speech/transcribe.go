package speech

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"net/textproto"
	"path"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// Transcriber turns audio into text through {base}/audio/transcriptions.
// It is safe for concurrent use.
type Transcriber struct {
	c     client
	model string
}

// maxTranscript bounds a transcription answer: a long note's text is a
// few KB, verbose formats with timings some hundred KB.
const maxTranscript = 4 << 20

// NewTranscriber checks e and builds a Transcriber; nothing is sent yet.
func NewTranscriber(e Endpoint) (*Transcriber, error) {
	c, err := newClient(e, "the transcription endpoint", transcriptionURLSetting, transcriptionKey, maxTranscript)
	if err != nil {
		return nil, err
	}
	return &Transcriber{c: c, model: e.Model}, nil
}

// Transcribe sends audio (a voice note or audio file, as the platform
// gave it: mime and fileName may be empty) and returns what was heard,
// trimmed; "" when the endpoint heard no words.
func (t *Transcriber) Transcribe(ctx context.Context, audio []byte, mimeType, fileName string) (string, error) {
	if len(audio) == 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the voice note is empty: there is nothing to transcribe")
	}
	name, ctype := UploadName(audio, mimeType, fileName)
	form, formType := t.form(audio, name, ctype)
	callCtx, cancel := context.WithTimeout(ctx, t.c.timeout)
	defer cancel()
	res, err := t.c.post(callCtx, "/audio/transcriptions", formType, form)
	if err != nil {
		return "", t.c.fail(ctx, err)
	}
	defer func() { _ = res.Body.Close() }() // decoded whole or failed
	var heard struct {
		Text string `json:"text"`
	}
	if err := json.NewDecoder(res.Body).Decode(&heard); err != nil {
		return "", t.c.fail(ctx, fmt.Errorf("reading the transcript: %w", err))
	}
	return strings.TrimSpace(heard.Text), nil
}

// form is the multipart body of a transcription: the audio as the file
// named name of type ctype, the model, and JSON asked for.
func (t *Transcriber) form(audio []byte, name, ctype string) (body []byte, contentType string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", multipart.FileContentDisposition("file", name))
	h.Set("Content-Type", ctype)
	// Writes to a bytes.Buffer cannot fail.
	part, _ := w.CreatePart(h)
	_, _ = part.Write(audio)
	_ = w.WriteField("model", t.model)
	_ = w.WriteField("response_format", "json")
	_ = w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// UploadName is the file name and Content-Type an upload is sent with.
// OpenAI tells the format by the name's extension, so the name gets the
// one that fits the audio: from the MIME type, else the given name's,
// else the bytes' signature; the name itself is reduced to plain
// characters, since it leaves the machine.
func UploadName(audio []byte, mimeType, fileName string) (name, contentType string) {
	mt, _, _ := mime.ParseMediaType(mimeType)
	mt = strings.ToLower(mt)
	base, given := plainName(fileName)
	ext := extByMIME[mt]
	if ext == "" && extByMIME[mimeByExt[given]] != "" {
		ext = given
	}
	if ext == "" {
		ext = sniffExt(audio)
	}
	if ext == "" {
		ext = ".ogg" // a voice note's, the usual case; the endpoint says if it is not
	}
	if mt == "" || extByMIME[mt] == "" {
		mt = mimeByExt[ext]
	}
	if base == "" {
		base = "voice-note"
	}
	return base + ext, mt
}

// extByMIME maps the audio types the platforms announce to the
// extensions OpenAI's endpoint knows (flac, mp3, mp4, mpeg, mpga, m4a,
// ogg, wav, webm).
var extByMIME = map[string]string{
	"audio/ogg": ".ogg", "audio/opus": ".ogg", "application/ogg": ".ogg", "audio/x-opus+ogg": ".ogg",
	"audio/mpeg": ".mp3", "audio/mp3": ".mp3", "audio/mpga": ".mp3",
	"audio/mp4": ".m4a", "audio/m4a": ".m4a", "audio/x-m4a": ".m4a", "audio/aac": ".m4a", "video/mp4": ".mp4",
	"audio/wav": ".wav", "audio/x-wav": ".wav", "audio/wave": ".wav", "audio/vnd.wave": ".wav",
	"audio/webm": ".webm", "video/webm": ".webm",
	"audio/flac": ".flac", "audio/x-flac": ".flac",
}

var mimeByExt = map[string]string{
	".ogg": "audio/ogg", ".oga": "audio/ogg", ".opus": "audio/ogg",
	".mp3": "audio/mpeg", ".mpga": "audio/mpeg", ".mpeg": "audio/mpeg",
	".m4a": "audio/mp4", ".mp4": "audio/mp4",
	".wav": "audio/wav", ".webm": "audio/webm", ".flac": "audio/flac",
}

// plainName splits a file name from outside into a base of plain
// characters (at most 64) and its lower-case extension.
func plainName(fileName string) (base, ext string) {
	fileName = path.Base(strings.ReplaceAll(fileName, `\`, "/"))
	if fileName == "." || fileName == "/" {
		return "", ""
	}
	ext = strings.ToLower(path.Ext(fileName))
	var b strings.Builder
	for _, r := range strings.TrimSuffix(fileName, path.Ext(fileName)) {
		switch {
		case b.Len() >= 64:
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ' || r == '.':
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-"), ext
}

// sniffExt names the extension of audio by its first bytes.
func sniffExt(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("OggS")):
		return ".ogg"
	case bytes.HasPrefix(b, []byte("ID3")), len(b) > 1 && b[0] == 0xFF && b[1]&0xE0 == 0xE0:
		return ".mp3"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return ".wav"
	case bytes.HasPrefix(b, []byte("fLaC")):
		return ".flac"
	case len(b) >= 8 && string(b[4:8]) == "ftyp":
		return ".m4a"
	case bytes.HasPrefix(b, []byte("\x1a\x45\xdf\xa3")):
		return ".webm"
	}
	return ""
}
