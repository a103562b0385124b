// Package fakespeech is an in-process OpenAI-compatible audio server for
// tests (V1): POST /v1/audio/transcriptions and POST /v1/audio/speech in
// OpenAI's wire format (the one its SDK speaks), so code under test drives
// its real HTTP client instead of a mock of it.
//
// Data flows one way: a test scripts the answers (texts to transcribe to,
// OGG/Opus bytes to speak with, failures to give); every call that reaches
// the server is checked as the real API would check it (the key, the
// required fields, and for transcriptions a valid OGG/Opus upload) and
// recorded, and then answered. Spoken makes real speech for the uploads.
package fakespeech

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
	"github.com/jarvisbot/jarvisbot/internal/oggopus"
)

// Transcription is one call to /v1/audio/transcriptions as received.
type Transcription struct {
	Model    string
	FileName string // the file part's file name
	MIME     string // the file part's Content-Type
	Audio    []byte
	// Duration is the upload's OGG/Opus length; 0 for other audio taken
	// under AcceptAnyAudio.
	Duration time.Duration
	Key      string            // the bearer token sent; "" for none
	Fields   map[string]string // every other form field: language, response_format…
}

// Speech is one call to /v1/audio/speech as received.
type Speech struct {
	Model, Voice, Input, Format string
	Key                         string // the bearer token sent; "" for none
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:PORT; BaseURL is
	// what a client is given.
	URL string

	srv *httptest.Server

	mu             sync.Mutex
	texts          []string
	defaultText    string
	anyAudio       bool
	key            string
	failN          int
	failStatus     int
	failMessage    string
	maxUpload      int64
	speech         []byte
	speechType     string
	transcriptions []Transcription
	speeches       []Speech
}

// Cleaner is what the server needs of whoever runs it: a *testing.T, or a
// program that serves it outside a test.
type Cleaner interface{ Cleanup(func()) }

// DefaultText is what a transcription answers when nothing is queued.
const DefaultText = "this is what the fake heard"

// DefaultMaxUpload is OpenAI's limit on an uploaded file (25 MB); a larger
// one gets 413 as there.
const DefaultMaxUpload = 25 << 20

// New starts a server; t.Cleanup closes it.
func New(t Cleaner) *Server {
	s := &Server{defaultText: DefaultText, maxUpload: DefaultMaxUpload, speechType: "audio/ogg"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/transcriptions", s.transcribe)
	mux.HandleFunc("POST /v1/audio/speech", s.speak)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the base URL for option.WithBaseURL (and the transcription
// and voice settings): it ends in "/v1" like the real one.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Close shuts the server down; it is idempotent.
func (s *Server) Close() { s.srv.Close() }

// PushText queues what the next transcriptions answer, one each.
func (s *Server) PushText(texts ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts = append(s.texts, texts...)
}

// SetDefaultText sets what a transcription answers when the queue is empty.
func (s *Server) SetDefaultText(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.defaultText = text
}

// AcceptAnyAudio makes transcriptions take uploads that are not OGG/Opus
// (MP3, M4A…), as the real endpoint does; by default such an upload gets
// 400, so a test learns when something other than a voice note was sent.
func (s *Server) AcceptAnyAudio(yes bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.anyAudio = yes
}

// RequireKey makes every call without "Authorization: Bearer key" get 401
// with OpenAI's "Incorrect API key provided" error; "" requires none.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// FailNext makes the next n calls to either endpoint get status with
// message in OpenAI's error body. They are recorded all the same.
func (s *Server) FailNext(n, status int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failN, s.failStatus, s.failMessage = n, status, message
}

// SetMaxUpload sets the largest file a transcription takes; larger gets 413.
func (s *Server) SetMaxUpload(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxUpload = n
}

// SetSpeech sets what /v1/audio/speech answers: the audio and its
// Content-Type ("" = audio/ogg). Until it is set, speech gets 500.
func (s *Server) SetSpeech(audio []byte, contentType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if contentType == "" {
		contentType = "audio/ogg"
	}
	s.speech, s.speechType = bytes.Clone(audio), contentType
}

// Transcriptions returns every transcription call received, in order.
func (s *Server) Transcriptions() []Transcription { return restapi.Copy(&s.mu, &s.transcriptions) }

// Speeches returns every speech call received, in order.
func (s *Server) Speeches() []Speech { return restapi.Copy(&s.mu, &s.speeches) }

// check answers what every call meets first: the key, then a scripted
// failure. It reports whether the call may go on.
func (s *Server) check(w http.ResponseWriter, key string) bool {
	s.mu.Lock()
	want := s.key
	fail, status, msg := s.failN > 0, s.failStatus, s.failMessage
	if fail {
		s.failN--
	}
	s.mu.Unlock()
	if want != "" && key != want {
		shown := key
		if len(shown) > 4 {
			shown = shown[:2] + "****" + shown[len(shown)-2:] // as OpenAI masks it
		}
		writeError(w, http.StatusUnauthorized, fmt.Sprintf("Incorrect API key provided: %s. You can find your API key in your account settings.", shown), "invalid_request_error", "invalid_api_key")
		return false
	}
	if fail {
		writeError(w, status, msg, "server_error", "")
		return false
	}
	return true
}

func (s *Server) transcribe(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	limit, anyAudio := s.maxUpload, s.anyAudio
	s.mu.Unlock()
	rec := Transcription{Key: bearerToken(r.Header), Fields: map[string]string{}}
	r.Body = http.MaxBytesReader(w, r.Body, limit+1<<20) // the file plus the form around it
	mr, err := r.MultipartReader()
	if err != nil {
		writeError(w, http.StatusBadRequest, "expected a multipart/form-data body: "+err.Error(), "invalid_request_error", "")
		return
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Maximum content size limit (%d) exceeded.", limit), "invalid_request_error", "")
			return
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "reading the form: "+err.Error(), "invalid_request_error", "")
			return
		}
		b, err := io.ReadAll(part)
		if errors.As(err, &tooLarge) || part.FormName() == "file" && int64(len(b)) > limit {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Maximum content size limit (%d) exceeded (%d bytes read).", limit, len(b)), "invalid_request_error", "")
			return
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "reading the form: "+err.Error(), "invalid_request_error", "")
			return
		}
		switch part.FormName() {
		case "file":
			rec.FileName, rec.MIME, rec.Audio = part.FileName(), part.Header.Get("Content-Type"), b
		case "model":
			rec.Model = string(b)
		default:
			rec.Fields[part.FormName()] = string(b)
		}
	}
	info, oggErr := oggopus.Check(rec.Audio)
	if oggErr == nil {
		rec.Duration = info.Duration
	}
	s.record(func() { s.transcriptions = append(s.transcriptions, rec) })
	if !s.check(w, rec.Key) {
		return
	}
	switch {
	case rec.Model == "":
		writeError(w, http.StatusBadRequest, "you must provide a model parameter", "invalid_request_error", "")
		return
	case rec.Audio == nil:
		writeError(w, http.StatusBadRequest, "no file was uploaded in the 'file' field", "invalid_request_error", "")
		return
	case rec.FileName == "" || !strings.Contains(rec.FileName, "."):
		// OpenAI tells the format by the file name's extension.
		writeError(w, http.StatusBadRequest, fmt.Sprintf("Unrecognized file format %q: the file name needs an extension such as .ogg", rec.FileName), "invalid_request_error", "")
		return
	}
	if oggErr != nil && !anyAudio {
		writeError(w, http.StatusBadRequest, "the upload is not a valid OGG/Opus file: "+oggErr.Error(), "invalid_request_error", "")
		return
	}
	s.mu.Lock()
	text := s.defaultText
	if len(s.texts) > 0 {
		text, s.texts = s.texts[0], s.texts[1:]
	}
	s.mu.Unlock()
	if rec.Fields["response_format"] == "text" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, text+"\n") // a failed write means the client is gone
		return
	}
	restapi.JSON(w, http.StatusOK, map[string]any{"text": text, "usage": map[string]any{"type": "duration", "seconds": info.Duration.Seconds()}})
}

func (s *Server) speak(w http.ResponseWriter, r *http.Request) {
	rec := Speech{Key: bearerToken(r.Header)}
	var body struct {
		Model          string          `json:"model"`
		Input          string          `json:"input"`
		Voice          json.RawMessage `json:"voice"`
		ResponseFormat string          `json:"response_format"`
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, http.StatusBadRequest, "expected a JSON body, got "+mt, "invalid_request_error", "")
		return
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "the body is not JSON: "+err.Error(), "invalid_request_error", "")
		return
	}
	rec.Model, rec.Input, rec.Format = body.Model, body.Input, body.ResponseFormat
	var voiceID struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(body.Voice, &rec.Voice) != nil && json.Unmarshal(body.Voice, &voiceID) == nil {
		rec.Voice = voiceID.ID
	}
	s.record(func() { s.speeches = append(s.speeches, rec) })
	if !s.check(w, rec.Key) {
		return
	}
	switch {
	case rec.Model == "" || rec.Voice == "" || rec.Input == "":
		writeError(w, http.StatusBadRequest, "model, voice and input are required", "invalid_request_error", "")
		return
	case len([]rune(rec.Input)) > 4096:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("input is %d characters; the most is 4096", len([]rune(rec.Input))), "invalid_request_error", "string_above_max_length")
		return
	}
	s.mu.Lock()
	audio, ctype := s.speech, s.speechType
	s.mu.Unlock()
	if audio == nil {
		writeError(w, http.StatusInternalServerError, "fakespeech: no speech was set (SetSpeech)", "server_error", "")
		return
	}
	w.Header().Set("Content-Type", ctype)
	_, _ = w.Write(audio) // a failed write means the client is gone
}

func (s *Server) record(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// bearerToken is the token of an "Authorization: Bearer" header; an SDK
// given an empty key may still send the bare word "Bearer".
func bearerToken(h http.Header) string {
	scheme, token, _ := strings.Cut(strings.TrimSpace(h.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// writeError writes OpenAI's error body. Statuses the SDK retries carry
// "retry-after: 0" so a retried call costs no wait in tests.
func writeError(w http.ResponseWriter, status int, message, typ, code string) {
	if status == http.StatusRequestTimeout || status == http.StatusConflict || status == http.StatusTooManyRequests || status >= 500 {
		w.Header().Set("Retry-After", "0")
	}
	e := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	restapi.JSON(w, status, map[string]any{"error": e})
}
