// Package faketelegram is a fake Telegram Bot API server for tests: real HTTP
// (httptest) speaking the wire protocol of the real one, so the code under
// test drives the real client library.
//
// Requests are POST /bot<TOKEN>/<method> with form-encoded (or multipart,
// or query) parameters, reply_markup a JSON string among them; answers
// are {"ok":true,"result":…} or {"ok":false,"error_code":…,"description":…}
// with the same HTTP status. A test queues what users do (SendText,
// Press), long polls return it, and every message the bot sends or edits
// is checked as Telegram checks it (HTML entities, 4096 characters,
// callback data of 64 bytes, "message is not modified") and recorded.
//
// Files: SendVoice, SendAudio and SendMedia store bytes as a file and
// queue a message carrying it; getFile answers its file_path, and
// GET /file/bot<TOKEN>/<file_path> serves the bytes, as Telegram and a
// self-hosted Bot API server do. sendVoice takes a multipart upload (or a
// known file_id) and records the bytes in Sent.
//
// It serves the tests of CH1–CH3 and V1 on Telegram.
package faketelegram

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// Button is one inline keyboard button.
type Button struct {
	Text string
	Data string // callback_data
	URL  string
}

// Sent is a message as the bot sent or last edited it.
type Sent struct {
	Method    string // sendMessage, sendVoice, sendDocument, editMessageText or editMessageReplyMarkup
	ChatID    int64
	MessageID int
	Text      string // as the bot sent it: HTML when ParseMode is "HTML"
	ParseMode string
	Buttons   [][]Button // nil when the message has none
	ReplyTo   int        // reply_to_message_id, 0 when it answers nothing
	// For sendVoice: the voice's bytes, its file_id (getFile and the file
	// endpoint serve it), caption and duration in seconds as sent.
	Voice    []byte
	FileID   string
	Caption  string
	Duration int
	// For sendDocument: the file's bytes and name (its caption is
	// Caption).
	Document []byte
	FileName string
	// NoPreview is disable_web_page_preview as sent.
	NoPreview bool
	// At is when the fake got it: a load test's latency is from the
	// update's POST to its answer here.
	At time.Time
}

// Media is a voice note, audio file or document a user sends (SendMedia).
type Media struct {
	Kind     string // "voice" (a voice note), "audio" (an audio file) or "document" (any file)
	Data     []byte
	MIME     string        // mime_type; omitted when ""
	FileName string        // file_name (audio and document); omitted when ""
	Duration time.Duration // sent in whole seconds, rounded up
	Caption  string
	// Size is the file_size the update and getFile report: 0 reports the
	// real size, -1 none; another value lies, as a test may need.
	Size int64
	// Path is the file_path getFile names, in place of the fake's own
	// (a hostile or broken Bot API endpoint, as a test may need).
	Path string
}

// file is what getFile and the file endpoint know of a file.
type file struct {
	id, uniqueID, path string
	data               []byte
	size               int64 // as reported; -1 for none
}

// Answer is an answerCallbackQuery.
type Answer struct {
	CallbackQueryID string
	Text            string
	ShowAlert       bool
}

// Command is one entry of setMyCommands.
type Command struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// Action is a sendChatAction.
type Action struct {
	ChatID int64
	Action string
}

// BotUsername is the bot's @name in getMe; its id is the token's number.
const BotUsername = "jarvis_test_bot"

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	URL   string // base URL: the library's endpoint is URL + "/bot%s/%s"
	Token string
	// RetryAfter is the parameters.retry_after of a 429 from FailNext;
	// default 1 second.
	RetryAfter int
	// FileLimit is the largest file getFile hands out, as Telegram's 20 MB
	// for bots; set it before the bot runs.
	FileLimit int64

	srv    *httptest.Server
	closed chan struct{}

	webhookURL, webhookSecret string
	once                      sync.Once

	mu        sync.Mutex
	changed   chan struct{}  // closed and replaced whenever anything happens
	updates   []update       // not yet confirmed by an offset
	history   map[int]update // every update queued, confirmed or not, by id
	conflicts int            // getUpdates calls ended by another one (409)
	nextUpd   int
	nextMsg   int
	messages  map[msgKey]*Sent
	sent      []Sent
	answers   []Answer
	callbacks map[string]bool // callback query id -> answered
	commands  []Command
	actions   []Action
	fail      map[string][]int
	calls     map[string]int
	poller    chan struct{}    // closed to end the getUpdates in flight with 409
	polling   int              // getUpdates calls waiting in the server for an update
	files     map[string]*file // by file_id
	nextFile  int
}

type msgKey struct {
	chat int64
	id   int
}

type update struct {
	ID   int
	JSON map[string]any
}

// Reporter is what a fake needs of whoever runs it: a *testing.T, or a
// program that serves the fake outside a test (scripts/footprint).
type Reporter interface {
	Errorf(format string, args ...any)
	Cleanup(func())
}

// New starts a fake for the token; it stops when the test ends.
func New(t Reporter, token string) *Server {
	s := &Server{
		Token: token, RetryAfter: 1, FileLimit: 20 << 20, files: map[string]*file{}, closed: make(chan struct{}), changed: make(chan struct{}),
		nextUpd: 100, nextMsg: 1, messages: map[msgKey]*Sent{}, callbacks: map[string]bool{}, history: map[int]update{},
		fail: map[string][]int{}, calls: map[string]int{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// Close ends long polls in flight and stops the server.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closed)
		s.srv.Close()
	})
}

// notify wakes waiters; call with s.mu held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func user(id int64) map[string]any {
	return map[string]any{"id": id, "is_bot": false, "first_name": "User", "last_name": strconv.FormatInt(id, 10), "username": "user" + strconv.FormatInt(id, 10)}
}

func chat(id int64) map[string]any {
	c := map[string]any{"id": id, "type": "private"}
	switch {
	case id < -1_000_000_000_000:
		c["type"], c["title"] = "supergroup", "Group"
	case id < 0:
		c["type"], c["title"] = "group", "Group"
	}
	return c
}

// SendText queues a text message from a user, as the next update, and
// returns its message id. Users are named "User <id>" (@user<id>).
func (s *Server) SendText(chatID, userID int64, text string) int {
	id, _ := s.sendText(chatID, userID, text)
	return id
}

// SendTextUpdate is SendText returning the update's id, which Post
// names, for a test that delivers updates by webhook itself.
func (s *Server) SendTextUpdate(chatID, userID int64, text string) int {
	_, update := s.sendText(chatID, userID, text)
	return update
}

func (s *Server) sendText(chatID, userID int64, text string) (message, update int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextMsg
	s.nextMsg++
	msg := map[string]any{"message_id": id, "from": user(userID), "chat": chat(chatID), "date": time.Now().Unix(), "text": text}
	if strings.HasPrefix(text, "/") {
		cmd, _, _ := strings.Cut(text, " ")
		msg["entities"] = []map[string]any{{"type": "bot_command", "offset": 0, "length": len(utf16.Encode([]rune(cmd)))}}
	}
	s.queue("message", msg)
	return id, s.nextUpd
}

// Press queues a tap on a button of the bot's message and returns the
// callback query id that answerCallbackQuery must name.
func (s *Server) Press(chatID, userID int64, messageID int, data string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	qid := strconv.Itoa(900000 + len(s.callbacks))
	s.callbacks[qid] = false
	msg := map[string]any{"message_id": messageID, "chat": chat(chatID), "date": time.Now().Unix()}
	if m := s.messages[msgKey{chatID, messageID}]; m != nil {
		msg = messageJSON(m, s.botUser())
	}
	s.queue("callback_query", map[string]any{"id": qid, "from": user(userID), "message": msg, "chat_instance": "ci" + strconv.FormatInt(chatID, 10), "data": data})
	return qid
}

// SendVoice queues a voice note (OGG/Opus, "audio/ogg") from a user and
// returns its message id; getFile and the file endpoint serve ogg.
func (s *Server) SendVoice(chatID, userID int64, ogg []byte, duration time.Duration) int {
	return s.SendMedia(chatID, userID, Media{Kind: "voice", Data: ogg, MIME: "audio/ogg", Duration: duration})
}

// SendAudio queues an audio file from a user and returns its message id.
func (s *Server) SendAudio(chatID, userID int64, data []byte, mimeType, fileName string, duration time.Duration) int {
	return s.SendMedia(chatID, userID, Media{Kind: "audio", Data: data, MIME: mimeType, FileName: fileName, Duration: duration})
}

// SendMedia queues a voice note or audio file as m describes it and
// returns its message id. It panics on another Kind: a test's mistake.
func (s *Server) SendMedia(chatID, userID int64, m Media) int {
	if m.Kind != "voice" && m.Kind != "audio" && m.Kind != "document" {
		panic(fmt.Sprintf("faketelegram: media kind %q is neither voice, audio nor document", m.Kind))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	size := m.Size
	if size == 0 {
		size = int64(len(m.Data))
	}
	f := s.storeFile(m.Kind, m.Data, size)
	if m.Path != "" {
		f.path = m.Path
	}
	id := s.nextMsg
	s.nextMsg++
	msg := map[string]any{"message_id": id, "from": user(userID), "chat": chat(chatID), "date": time.Now().Unix()}
	obj := fileJSON(f, seconds(m.Duration), m.MIME)
	if m.Kind != "voice" && m.FileName != "" {
		obj["file_name"] = m.FileName
	}
	if m.Kind == "document" {
		delete(obj, "duration") // a document has none
	}
	msg[m.Kind] = obj
	if m.Caption != "" {
		msg["caption"] = m.Caption
	}
	s.queue("message", msg)
	return id
}

// SendDocument queues a file a user sends as a document (images too, sent
// "as a file") and returns its message id.
func (s *Server) SendDocument(chatID, userID int64, data []byte, mimeType, fileName, caption string) int {
	return s.SendMedia(chatID, userID, Media{Kind: "document", Data: data, MIME: mimeType, FileName: fileName, Caption: caption})
}

// PhotoSize is one size of a photo a user sends: Telegram keeps a photo
// in several sizes (a thumbnail, a medium and the largest), each a file.
type PhotoSize struct {
	Data          []byte
	Width, Height int
	// Size is the file_size reported: 0 the real size, -1 none, another
	// value lies, as a test may need.
	Size int64
}

// SendPhoto queues a photo in its sizes, smallest first as Telegram
// lists them, with a caption ("" for none), and returns its message id.
func (s *Server) SendPhoto(chatID, userID int64, caption string, sizes ...PhotoSize) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var photo []any
	for _, p := range sizes {
		size := p.Size
		if size == 0 {
			size = int64(len(p.Data))
		}
		f := s.storeFile("photo", p.Data, size)
		j := map[string]any{"file_id": f.id, "file_unique_id": f.uniqueID, "width": p.Width, "height": p.Height}
		if size >= 0 {
			j["file_size"] = size
		}
		photo = append(photo, j)
	}
	id := s.nextMsg
	s.nextMsg++
	msg := map[string]any{"message_id": id, "from": user(userID), "chat": chat(chatID), "date": time.Now().Unix(), "photo": photo}
	if caption != "" {
		msg["caption"] = caption
	}
	s.queue("message", msg)
	return id
}

// seconds is a duration as Telegram gives it: whole seconds, rounded up.
func seconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// storeFile keeps data as a file; call with s.mu held.
func (s *Server) storeFile(kind string, data []byte, size int64) *file {
	s.nextFile++
	n := strconv.Itoa(s.nextFile)
	f := &file{id: "AwACAgIAAxkBAAI" + n, uniqueID: "AgAD" + n, path: kind + "/file_" + n + ".oga", data: append([]byte(nil), data...), size: size}
	switch kind {
	case "audio":
		f.path = "music/file_" + n
	case "document":
		f.path = "documents/file_" + n
	case "photo":
		f.path = "photos/file_" + n + ".jpg"
	}
	s.files[f.id] = f
	return f
}

func fileJSON(f *file, duration int, mimeType string) map[string]any {
	j := map[string]any{"file_id": f.id, "file_unique_id": f.uniqueID, "duration": duration}
	if mimeType != "" {
		j["mime_type"] = mimeType
	}
	if f.size >= 0 {
		j["file_size"] = f.size
	}
	return j
}

func (s *Server) queue(kind string, v map[string]any) {
	s.nextUpd++
	u := update{ID: s.nextUpd, JSON: map[string]any{"update_id": s.nextUpd, kind: v}}
	s.updates = append(s.updates, u)
	s.history[u.ID] = u
	s.notify()
}

// LastUpdate is the id of the update queued last.
func (s *Server) LastUpdate() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextUpd
}

// Post delivers update id as Telegram does by webhook: a POST of its JSON
// to url, the secret token in X-Telegram-Bot-Api-Secret-Token. A 200
// confirms it (it leaves the pending updates); another answer leaves it
// pending, as Telegram keeps it to try again. An update posted before can
// be posted again, as Telegram retries one whose answer it did not get.
// It returns the answer's status.
func (s *Server) Post(url, secret string, id int) (int, error) {
	s.mu.Lock()
	u, ok := s.history[id]
	s.mu.Unlock()
	if !ok {
		return 0, fmt.Errorf("faketelegram: no update %d was queued", id)
	}
	body, err := json.Marshal(u.JSON)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body) // drained so the connection is reused; the status is the answer
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		s.mu.Lock()
		keep := s.updates[:0]
		for _, p := range s.updates {
			if p.ID != id {
				keep = append(keep, p)
			}
		}
		s.updates = keep
		s.notify()
		s.mu.Unlock()
	}
	return resp.StatusCode, nil
}

// Conflicts counts the getUpdates calls another getUpdates ended with 409
// (two programs polling one bot), and those refused while a webhook is
// set.
func (s *Server) Conflicts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conflicts
}

// Sent returns every message the bot sent or edited, in order (what
// succeeded; refused calls count only in Calls).
func (s *Server) Sent() []Sent { return restapi.Copy(&s.mu, &s.sent) }

// Message returns a message as it stands now.
func (s *Server) Message(chatID int64, messageID int) (Sent, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messages[msgKey{chatID, messageID}]
	if m == nil {
		return Sent{}, false
	}
	return *m, true
}

// Answers returns the answered button presses.
func (s *Server) Answers() []Answer { return restapi.Copy(&s.mu, &s.answers) }

// Commands returns the commands last set.
func (s *Server) Commands() []Command { return restapi.Copy(&s.mu, &s.commands) }

// Actions returns the chat actions sent ("typing").
func (s *Server) Actions() []Action { return restapi.Copy(&s.mu, &s.actions) }

// Pending is the number of updates not yet confirmed by a getUpdates
// offset past them.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.updates)
}

// Polling counts the getUpdates calls waiting in the server for an
// update to come: a test that must know a long poll is in flight (to
// answer it later, or to stop the bot while it waits) waits for it.
func (s *Server) Polling() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polling
}

// Calls counts the calls of a method that reached the server with the
// right token, failed ones included; "file" counts downloads from the file
// endpoint.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[strings.ToLower(method)]
}

// FailNext makes the next n calls of method fail with status: a 429
// carries parameters.retry_after (RetryAfter), others the status's text.
// Method "file" fails downloads from the file endpoint.
func (s *Server) FailNext(method string, n int, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := strings.ToLower(method)
	for range n {
		s.fail[m] = append(s.fail[m], status)
	}
}

// WaitAnswers waits until at least n presses were answered and returns
// the answers; it fails the test after timeout.
func (s *Server) WaitAnswers(t testing.TB, n int, timeout time.Duration) []Answer {
	t.Helper()
	s.Wait(t, timeout, fmt.Sprintf("%d answered presses", n), func() bool { return len(s.Answers()) >= n })
	return s.Answers()
}

// Wait waits until cond holds, checking it again each time the fake
// records anything (a call, a message, an answer, an update, a poll
// starting to wait, a webhook); after timeout it fails the test, naming
// what it waited for and showing what the fake saw. cond may call the
// Server's methods.
func (s *Server) Wait(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, timeout, what, func() (bool, any) {
		if cond() {
			return true, nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return false, fmt.Sprintf("faketelegram: calls %v, polls waiting %d, updates pending %d, sent %+v, answers %+v",
			s.calls, s.polling, len(s.updates), s.sent, s.answers)
	}, testwait.WithChange(s.changes))
}

// changes returns the channel closed at the fake's next change.
func (s *Server) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// apiError is an {"ok":false} answer.
type apiError struct {
	code       int
	desc       string
	retryAfter int
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{code: http.StatusBadRequest, desc: "Bad Request: " + fmt.Sprintf(format, args...)}
}

func reply(w http.ResponseWriter, result any, e *apiError) {
	w.Header().Set("Content-Type", "application/json")
	if e != nil {
		body := map[string]any{"ok": false, "error_code": e.code, "description": e.desc}
		if e.retryAfter > 0 {
			body["parameters"] = map[string]any{"retry_after": e.retryAfter}
		}
		w.WriteHeader(e.code)
		json.NewEncoder(w).Encode(body)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

var tokenShape = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]+$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, r, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || !tokenShape.MatchString(token) {
		reply(w, nil, &apiError{code: http.StatusNotFound, desc: "Not Found"})
		return
	}
	if token != s.Token {
		reply(w, nil, &apiError{code: http.StatusUnauthorized, desc: "Unauthorized"})
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		r.ParseMultipartForm(1 << 20)
	} else if err := r.ParseForm(); err != nil {
		reply(w, nil, badRequest("invalid request parameters"))
		return
	}
	method = strings.ToLower(method)
	s.mu.Lock()
	s.calls[method]++
	var failStatus int
	if q := s.fail[method]; len(q) > 0 {
		failStatus, s.fail[method] = q[0], q[1:]
	}
	s.notify()
	s.mu.Unlock()
	if failStatus != 0 {
		e := &apiError{code: failStatus, desc: http.StatusText(failStatus)}
		if failStatus == http.StatusTooManyRequests {
			e.retryAfter = s.RetryAfter
			e.desc = fmt.Sprintf("Too Many Requests: retry after %d", s.RetryAfter)
		}
		reply(w, nil, e)
		return
	}
	handlers := map[string]func(*http.Request) (any, *apiError){
		"getme":                  s.getMe,
		"getupdates":             s.getUpdates,
		"sendmessage":            s.sendMessage,
		"editmessagetext":        s.editMessageText,
		"editmessagereplymarkup": s.editMessageReplyMarkup,
		"answercallbackquery":    s.answerCallbackQuery,
		"sendchataction":         s.sendChatAction,
		"setmycommands":          s.setMyCommands,
		"setwebhook":             s.setWebhook,
		"deletewebhook":          s.deleteWebhook,
		"getfile":                s.getFile,
		"sendvoice":              s.sendVoice,
		"senddocument":           s.sendDocument,
	}
	h := handlers[method]
	if h == nil {
		reply(w, nil, &apiError{code: http.StatusNotFound, desc: "Not Found"})
		return
	}
	result, e := h(r)
	reply(w, result, e)
}

func (s *Server) botUser() map[string]any {
	id, _ := strconv.ParseInt(strings.SplitN(s.Token, ":", 2)[0], 10, 64)
	return map[string]any{"id": id, "is_bot": true, "first_name": "Jarvis", "username": BotUsername,
		"can_join_groups": true, "can_read_all_group_messages": false, "supports_inline_queries": false}
}

func (s *Server) getMe(*http.Request) (any, *apiError) { return s.botUser(), nil }

// getUpdates confirms the updates before offset, then answers those
// left, waiting up to timeout seconds for one to come. A second poll ends
// the first with 409, as Telegram does.
func (s *Server) getUpdates(r *http.Request) (any, *apiError) {
	offset, _ := strconv.Atoi(r.Form.Get("offset"))
	timeout, _ := strconv.Atoi(r.Form.Get("timeout"))
	limit, _ := strconv.Atoi(r.Form.Get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	deadline := time.NewTimer(time.Duration(timeout) * time.Second)
	defer deadline.Stop()

	s.mu.Lock()
	if s.webhookURL != "" {
		s.conflicts++
		s.notify()
		s.mu.Unlock()
		return nil, &apiError{code: http.StatusConflict, desc: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}
	}
	if s.poller != nil {
		close(s.poller)
	}
	mine := make(chan struct{})
	s.poller = mine
	defer func() {
		s.mu.Lock()
		if s.poller == mine {
			s.poller = nil
		}
		s.mu.Unlock()
	}()
	if offset > 0 {
		keep := s.updates[:0]
		for _, u := range s.updates {
			if u.ID >= offset {
				keep = append(keep, u)
			}
		}
		s.updates = keep
		s.notify()
	}
	waiting := false
	defer func() {
		if waiting {
			s.mu.Lock()
			s.polling--
			s.notify()
			s.mu.Unlock()
		}
	}()
	for {
		if len(s.updates) > 0 {
			var out []map[string]any
			for _, u := range s.updates[:min(limit, len(s.updates))] {
				out = append(out, u.JSON)
			}
			s.mu.Unlock()
			return out, nil
		}
		if !waiting && timeout > 0 {
			waiting = true
			s.polling++
			s.notify()
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-mine:
			s.mu.Lock()
			s.conflicts++
			s.notify()
			s.mu.Unlock()
			return nil, &apiError{code: http.StatusConflict, desc: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}
		case <-deadline.C:
			return []any{}, nil
		case <-r.Context().Done():
			return []any{}, nil
		case <-s.closed:
			return []any{}, nil
		}
		s.mu.Lock()
	}
}

func formChat(r *http.Request) (int64, *apiError) {
	id, err := strconv.ParseInt(r.Form.Get("chat_id"), 10, 64)
	if err != nil || id == 0 {
		return 0, badRequest("chat not found")
	}
	return id, nil
}

// parseMarkup reads reply_markup; present reports whether it was given.
func parseMarkup(r *http.Request) (buttons [][]Button, present bool, e *apiError) {
	raw := r.Form.Get("reply_markup")
	if raw == "" {
		return nil, false, nil
	}
	var m struct {
		InlineKeyboard [][]struct {
			Text         string  `json:"text"`
			CallbackData *string `json:"callback_data"`
			URL          *string `json:"url"`
		} `json:"inline_keyboard"`
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, true, badRequest("can't parse reply keyboard markup JSON object")
	}
	for _, row := range m.InlineKeyboard {
		var out []Button
		for _, b := range row {
			switch {
			case b.Text == "":
				return nil, true, badRequest("BUTTON_TEXT_INVALID")
			case b.CallbackData == nil && b.URL == nil:
				return nil, true, badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
			case b.CallbackData != nil && (len(*b.CallbackData) == 0 || len(*b.CallbackData) > 64):
				return nil, true, badRequest("BUTTON_DATA_INVALID")
			}
			btn := Button{Text: b.Text}
			if b.CallbackData != nil {
				btn.Data = *b.CallbackData
			}
			if b.URL != nil {
				btn.URL = *b.URL
			}
			out = append(out, btn)
		}
		if len(out) > 0 {
			buttons = append(buttons, out)
		}
	}
	return buttons, true, nil
}

// visibleText is the text a reader sees of text under its parse mode;
// HTML that does not parse is refused as Telegram refuses it.
func visibleText(text, mode string) (string, *apiError) {
	if !strings.EqualFold(mode, "HTML") {
		return text, nil
	}
	v, err := parseHTML(text)
	if err != nil {
		return "", badRequest("can't parse entities: %s", err.Error())
	}
	return v, nil
}

// formText reads a message's text, parse mode and buttons, checked as
// Telegram checks them.
func formText(r *http.Request) (text, mode string, buttons [][]Button, e *apiError) {
	text, mode = r.Form.Get("text"), r.Form.Get("parse_mode")
	if e := checkText(text, mode); e != nil {
		return "", "", nil, e
	}
	if buttons, _, e = parseMarkup(r); e != nil {
		return "", "", nil, e
	}
	return text, mode, buttons, nil
}

// checkText is Telegram's check of a message text under its parse mode.
func checkText(text, mode string) *apiError {
	visible, e := visibleText(text, mode)
	if e != nil {
		return e
	}
	if strings.TrimSpace(visible) == "" {
		return badRequest("message text is empty")
	}
	if len(utf16.Encode([]rune(visible))) > 4096 {
		return badRequest("message is too long")
	}
	return nil
}

func messageJSON(m *Sent, from map[string]any) map[string]any {
	text := m.Text
	if strings.EqualFold(m.ParseMode, "HTML") {
		text, _ = parseHTML(m.Text)
	}
	j := map[string]any{"message_id": m.MessageID, "from": from, "chat": chat(m.ChatID), "date": time.Now().Unix(), "text": text}
	if len(m.Buttons) > 0 {
		var rows [][]map[string]any
		for _, row := range m.Buttons {
			var r []map[string]any
			for _, b := range row {
				btn := map[string]any{"text": b.Text}
				if b.Data != "" {
					btn["callback_data"] = b.Data
				}
				if b.URL != "" {
					btn["url"] = b.URL
				}
				r = append(r, btn)
			}
			rows = append(rows, r)
		}
		j["reply_markup"] = map[string]any{"inline_keyboard": rows}
	}
	return j
}

func (s *Server) sendMessage(r *http.Request) (any, *apiError) {
	c, e := formChat(r)
	if e != nil {
		return nil, e
	}
	text, mode, buttons, e := formText(r)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Sent{Method: "sendMessage", ChatID: c, Text: text, ParseMode: mode, Buttons: buttons}
	m.NoPreview, _ = strconv.ParseBool(r.Form.Get("disable_web_page_preview"))
	m.ReplyTo, _ = strconv.Atoi(r.Form.Get("reply_to_message_id"))
	return s.post(m), nil
}

func (s *Server) editTarget(r *http.Request) (*Sent, *apiError) {
	c, e := formChat(r)
	if e != nil {
		return nil, e
	}
	id, _ := strconv.Atoi(r.Form.Get("message_id"))
	m := s.messages[msgKey{c, id}]
	if m == nil {
		return nil, badRequest("message to edit not found")
	}
	return m, nil
}

func sameButtons(a, b [][]Button) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

var notModified = badRequest("message is not modified: specified new message content and reply markup are exactly the same as a content and reply markup of the current message")

// editMessageText replaces text and keyboard: without reply_markup the
// keyboard goes, as on Telegram.
func (s *Server) editMessageText(r *http.Request) (any, *apiError) {
	text, mode, buttons, e := formText(r)
	if e != nil {
		return nil, e
	}
	return s.edit(r, func(m *Sent) *apiError {
		if m.Voice != nil {
			return badRequest("there is no text in the message to edit")
		}
		if m.Text == text && m.ParseMode == mode && sameButtons(m.Buttons, buttons) {
			return notModified
		}
		m.Method, m.Text, m.ParseMode, m.Buttons = "editMessageText", text, mode, buttons
		return nil
	})
}

func (s *Server) editMessageReplyMarkup(r *http.Request) (any, *apiError) {
	buttons, _, e := parseMarkup(r)
	if e != nil {
		return nil, e
	}
	return s.edit(r, func(m *Sent) *apiError {
		if sameButtons(m.Buttons, buttons) {
			return notModified
		}
		m.Method, m.Buttons = "editMessageReplyMarkup", buttons
		return nil
	})
}

// edit lets change edit the message the request names, holding s.mu, and
// records the edited message as sent now.
func (s *Server) edit(r *http.Request, change func(m *Sent) *apiError) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, e := s.editTarget(r)
	if e != nil {
		return nil, e
	}
	if e := change(m); e != nil {
		return nil, e
	}
	return s.record(m), nil
}

// post records m, a message the bot sends, under the next message id; the
// caller holds s.mu.
func (s *Server) post(m *Sent) map[string]any {
	m.MessageID = s.nextMsg
	s.nextMsg++
	s.messages[msgKey{m.ChatID, m.MessageID}] = m
	return s.record(m)
}

// record logs m as sent now and returns it as Telegram shows it; the
// caller holds s.mu.
func (s *Server) record(m *Sent) map[string]any {
	m.At = time.Now()
	s.sent = append(s.sent, *m)
	s.notify()
	return messageJSON(m, s.botUser())
}

func (s *Server) answerCallbackQuery(r *http.Request) (any, *apiError) {
	qid := r.Form.Get("callback_query_id")
	s.mu.Lock()
	defer s.mu.Unlock()
	answered, known := s.callbacks[qid]
	if !known || answered {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	if len([]rune(r.Form.Get("text"))) > 200 {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	s.callbacks[qid] = true
	s.answers = append(s.answers, Answer{CallbackQueryID: qid, Text: r.Form.Get("text"), ShowAlert: r.Form.Get("show_alert") == "true"})
	s.notify()
	return true, nil
}

var chatActions = map[string]bool{"typing": true, "upload_photo": true, "record_video": true, "upload_video": true,
	"record_voice": true, "upload_voice": true, "upload_document": true, "choose_sticker": true,
	"find_location": true, "record_video_note": true, "upload_video_note": true}

func (s *Server) sendChatAction(r *http.Request) (any, *apiError) {
	c, e := formChat(r)
	if e != nil {
		return nil, e
	}
	a := r.Form.Get("action")
	if !chatActions[a] {
		return nil, badRequest("wrong parameter action in request")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.actions = append(s.actions, Action{ChatID: c, Action: a})
	s.notify()
	return true, nil
}

var commandName = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

func (s *Server) setMyCommands(r *http.Request) (any, *apiError) {
	var cmds []Command
	if err := json.Unmarshal([]byte(r.Form.Get("commands")), &cmds); err != nil {
		return nil, badRequest("can't parse commands JSON object")
	}
	for _, c := range cmds {
		if !commandName.MatchString(c.Command) {
			return nil, badRequest("BOT_COMMAND_INVALID")
		}
		if n := len([]rune(c.Description)); n < 1 || n > 256 {
			return nil, badRequest("BOT_COMMAND_DESCRIPTION_INVALID")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commands = cmds
	s.notify()
	return true, nil
}

// Webhook returns the webhook URL and secret token the bot set, "" when
// it polls.
func (s *Server) Webhook() (url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhookURL, s.webhookSecret
}

func (s *Server) setWebhook(r *http.Request) (any, *apiError) {
	u := r.Form.Get("url")
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://127.0.0.1") {
		return nil, badRequest("bad webhook: An HTTPS URL must be provided for webhook")
	}
	s.mu.Lock()
	s.webhookURL, s.webhookSecret = u, r.Form.Get("secret_token")
	s.notify()
	s.mu.Unlock()
	return true, nil
}

func (s *Server) deleteWebhook(*http.Request) (any, *apiError) {
	s.mu.Lock()
	s.webhookURL, s.webhookSecret = "", ""
	s.notify()
	s.mu.Unlock()
	return true, nil
}

// serveFile answers GET /file/bot<TOKEN>/<file_path>. Telegram answers a
// wrong token or path on this endpoint with a bare 404.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, rest string) {
	token, path, _ := strings.Cut(rest, "/")
	if token != s.Token {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	s.mu.Lock()
	s.calls["file"]++
	var failStatus int
	if q := s.fail["file"]; len(q) > 0 {
		failStatus, s.fail["file"] = q[0], q[1:]
	}
	var data []byte
	found := false
	for _, f := range s.files {
		if f.path == path {
			data, found = f.data, true
			break
		}
	}
	s.notify()
	s.mu.Unlock()
	switch {
	case failStatus != 0:
		http.Error(w, http.StatusText(failStatus), failStatus)
	case !found:
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	}
}

// getFile answers a file's path for the file endpoint; a file above
// FileLimit is refused as Telegram refuses one above 20 MB.
func (s *Server) getFile(r *http.Request) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[r.Form.Get("file_id")]
	if f == nil {
		return nil, badRequest("invalid file_id")
	}
	if int64(len(f.data)) > s.FileLimit {
		return nil, badRequest("file is too big")
	}
	j := map[string]any{"file_id": f.id, "file_unique_id": f.uniqueID, "file_path": f.path}
	if f.size >= 0 {
		j["file_size"] = f.size
	}
	return j, nil
}

// maxCaption is Telegram's limit for a caption, in UTF-16 units of the
// visible text.
const maxCaption = 1024

// formCaptioned reads the chat and the caption (with its parse mode) of a
// file sent with one, checked as Telegram checks them.
func formCaptioned(r *http.Request) (chat int64, caption, mode string, e *apiError) {
	if chat, e = formChat(r); e != nil {
		return 0, "", "", e
	}
	caption, mode = r.Form.Get("caption"), r.Form.Get("parse_mode")
	if e := checkCaption(caption, mode); e != nil {
		return 0, "", "", e
	}
	return chat, caption, mode, nil
}

// checkCaption refuses a caption Telegram would: entities that do not
// parse in HTML mode, or visible text over maxCaption.
func checkCaption(caption, mode string) *apiError {
	if caption == "" {
		return nil
	}
	visible, e := visibleText(caption, mode)
	if e != nil {
		return e
	}
	if len(utf16.Encode([]rune(visible))) > maxCaption {
		return badRequest("message caption is too long")
	}
	return nil
}

// sendVoice takes the voice as a multipart upload, or the file_id of a
// file the fake holds, and records it.
func (s *Server) sendVoice(r *http.Request) (any, *apiError) {
	c, caption, mode, e := formCaptioned(r)
	if e != nil {
		return nil, e
	}
	var data []byte
	if r.MultipartForm != nil && len(r.MultipartForm.File["voice"]) > 0 {
		fh := r.MultipartForm.File["voice"][0]
		f, err := fh.Open()
		if err != nil {
			return nil, badRequest("wrong file")
		}
		data, err = io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, badRequest("wrong file")
		}
	} else if id := r.Form.Get("voice"); id != "" {
		s.mu.Lock()
		f := s.files[id]
		s.mu.Unlock()
		if f == nil {
			return nil, badRequest("wrong file identifier/HTTP URL specified")
		}
		data = f.data
	}
	if len(data) == 0 {
		return nil, badRequest("there is no voice in the request")
	}
	duration, _ := strconv.Atoi(r.Form.Get("duration"))
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.storeFile("voice", data, int64(len(data)))
	m := &Sent{Method: "sendVoice", ChatID: c, ParseMode: mode, Voice: f.data, FileID: f.id, Caption: caption, Duration: duration}
	m.ReplyTo, _ = strconv.Atoi(r.Form.Get("reply_to_message_id"))
	j := s.post(m)
	delete(j, "text")
	j["voice"] = fileJSON(f, duration, "audio/ogg")
	if caption != "" {
		j["caption"] = caption
	}
	return j, nil
}

// sendDocument takes a file as a multipart upload and records it with
// its caption, as Telegram's sendDocument does.
func (s *Server) sendDocument(r *http.Request) (any, *apiError) {
	c, caption, mode, e := formCaptioned(r)
	if e != nil {
		return nil, e
	}
	if r.MultipartForm == nil || len(r.MultipartForm.File["document"]) == 0 {
		return nil, badRequest("there is no document in the request")
	}
	fh := r.MultipartForm.File["document"][0]
	f, err := fh.Open()
	if err != nil {
		return nil, badRequest("wrong file")
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || len(data) == 0 {
		return nil, badRequest("file must be non-empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fl := s.storeFile("document", data, int64(len(data)))
	m := &Sent{Method: "sendDocument", ChatID: c, ParseMode: mode, Document: fl.data, FileID: fl.id, FileName: fh.Filename, Caption: caption}
	j := s.post(m)
	delete(j, "text")
	j["document"] = map[string]any{"file_id": fl.id, "file_unique_id": fl.uniqueID, "file_name": fh.Filename, "file_size": len(data)}
	if caption != "" {
		j["caption"] = caption
	}
	return j, nil
}
