package fakegoogle

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"

	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// DefaultMailAddress is the signed-in user's address until SetMailAddress
// changes it: what users.getProfile answers for "me".
const DefaultMailAddress = "owner@example.com"

// Gmail's system labels: their ids are their names.
var systemLabels = []string{"INBOX", "UNREAD", "STARRED", "IMPORTANT", "SENT", "DRAFT", "SPAM", "TRASH"}

// Message is a mail the test puts in the fake mailbox with AddMessage.
type Message struct {
	From, To, Cc, ReplyTo string
	Subject               string
	Date                  time.Time
	Plain                 string // the text/plain part; "" for none
	HTML                  string // the text/html part; "" for none
	Attachments           []Attachment
	// Labels are label names: system ones (INBOX, UNREAD, …) or the
	// owner's, which are made when first named.
	Labels []string
	// Thread is the id of the thread the message joins; "" starts a new
	// one whose id is the message's.
	Thread string
	// MessageID is the Message-ID header; "" makes one up.
	MessageID, InReplyTo, References string
	// Charset is what Plain and HTML are written in ("" for UTF-8): their
	// bytes are served as they are, as Gmail serves a part's bytes.
	Charset string
}

// An Attachment is a file attached to a Message.
type Attachment struct {
	Name, Type string
	Data       []byte
}

// Mail is a message the client sent or saved as a draft, read back from
// the raw RFC 5322 text it uploaded.
type Mail struct {
	ID, ThreadID, DraftID string
	Header                mail.Header // as sent: encoded words stay encoded
	Body                  string      // the text/plain body, transfer-decoded, LF line ends
}

type storedMessage struct {
	id, thread string
	m          Message
	labels     []string // label ids
	seq        int      // order of arrival, for ties in date
}

type label struct{ id, name, kind string }

// mailData is the fake's Gmail v1 state; Server.mu guards it.
type mailData struct {
	address  string
	next     int
	messages []*storedMessage
	labels   []label
	sent     []Mail
	drafts   []Mail
	clock    clock.Clock // for newer_than: and older_than:
}

func newMailData() *mailData {
	d := &mailData{address: DefaultMailAddress, clock: clock.Real{}}
	for _, l := range systemLabels {
		d.labels = append(d.labels, label{id: l, name: l, kind: "system"})
	}
	return d
}

// SetMailAddress sets the signed-in user's address.
func (s *Server) SetMailAddress(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mail.address = addr
}

// SetMailClock sets the clock searches with newer_than: and older_than:
// count back from.
func (s *Server) SetMailClock(c clock.Clock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mail.clock = c
}

// AddLabel makes an owner's label named name (if there is none) and
// returns its id.
func (s *Server) AddLabel(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mail.labelID(name)
}

// AddMessage puts m in the mailbox and returns its id.
func (s *Server) AddMessage(m Message) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mail.add(m)
}

// Labels returns the names of the labels message id carries, sorted; nil
// when there is no such message.
func (s *Server) Labels(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sm := s.mail.message(id)
	if sm == nil {
		return nil
	}
	var names []string
	for _, l := range sm.labels {
		names = append(names, s.mail.labelName(l))
	}
	slices.Sort(names)
	return names
}

// Sent returns the messages sent through messages.send, in order.
func (s *Server) Sent() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.mail.sent)
}

// Drafts returns the drafts made through drafts.create, in order.
func (s *Server) Drafts() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.mail.drafts)
}

func (d *mailData) add(m Message) string {
	d.next++
	sm := &storedMessage{id: fmt.Sprintf("18f%05x", d.next), m: m, seq: d.next}
	sm.thread = sm.id
	if m.Thread != "" {
		sm.thread = m.Thread
	}
	if sm.m.MessageID == "" {
		sm.m.MessageID = "<" + sm.id + "@mail.example.com>"
	}
	if sm.m.Date.IsZero() {
		sm.m.Date = time.Now()
	}
	for _, name := range m.Labels {
		id := d.labelID(name)
		if !slices.Contains(sm.labels, id) {
			sm.labels = append(sm.labels, id)
		}
	}
	d.messages = append(d.messages, sm)
	return sm.id
}

// labelID returns the id of the label named name, making an owner's label
// when there is none.
func (d *mailData) labelID(name string) string {
	for _, l := range d.labels {
		if strings.EqualFold(l.name, name) {
			return l.id
		}
	}
	id := fmt.Sprintf("Label_%d", len(d.labels)-len(systemLabels)+1)
	d.labels = append(d.labels, label{id: id, name: name, kind: "user"})
	return id
}

func (d *mailData) labelName(id string) string {
	for _, l := range d.labels {
		if l.id == id {
			return l.name
		}
	}
	return id
}

func (d *mailData) knownLabel(id string) bool {
	return slices.ContainsFunc(d.labels, func(l label) bool { return l.id == id })
}

func (d *mailData) message(id string) *storedMessage {
	for _, sm := range d.messages {
		if sm.id == id {
			return sm
		}
	}
	return nil
}

// thread returns the messages of thread id, oldest first.
func (d *mailData) thread(id string) []*storedMessage {
	var out []*storedMessage
	for _, sm := range d.messages {
		if sm.thread == id {
			out = append(out, sm)
		}
	}
	slices.SortStableFunc(out, func(a, b *storedMessage) int { return a.m.Date.Compare(b.m.Date) })
	return out
}

// gmailRoutes serves Gmail v1 below /gmail/v1/users/{userId}/.
func (s *Server) gmailRoutes(mux *http.ServeMux) {
	const base = "/gmail/v1/users/{userId}/"
	handle := func(pattern string, h func(w http.ResponseWriter, r *http.Request)) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.HandleFunc(method+" "+base+path, func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if u := r.PathValue("userId"); u != "me" && u != s.mail.address {
				Error(w, http.StatusForbidden, "Delegation denied for "+s.mail.address)
				return
			}
			h(w, r)
		})
	}
	handle("GET profile", s.gmailProfile)
	handle("GET labels", s.gmailLabels)
	handle("GET messages", s.gmailList)
	handle("GET messages/{id}", s.gmailGet)
	handle("POST messages/{id}/modify", s.gmailModify)
	handle("POST messages/send", s.gmailSend)
	handle("GET threads/{id}", s.gmailThread)
	handle("POST threads/{id}/modify", s.gmailThreadModify)
	handle("POST drafts", s.gmailDraft)
}

func (s *Server) gmailProfile(w http.ResponseWriter, r *http.Request) {
	threads := map[string]bool{}
	for _, sm := range s.mail.messages {
		threads[sm.thread] = true
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"emailAddress":  s.mail.address,
		"messagesTotal": len(s.mail.messages),
		"threadsTotal":  len(threads),
		"historyId":     strconv.Itoa(s.mail.next),
	})
}

func (s *Server) gmailLabels(w http.ResponseWriter, r *http.Request) {
	var out []map[string]any
	for _, l := range s.mail.labels {
		out = append(out, map[string]any{"id": l.id, "name": l.name, "type": l.kind})
	}
	writeJSON(w, http.StatusOK, map[string]any{"labels": out})
}

func (s *Server) gmailList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	match, err := s.mail.query(q.Get("q"), q.Get("includeSpamTrash") == "true")
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	var hits []*storedMessage
	for _, sm := range s.mail.messages {
		if match(sm) && hasAll(sm.labels, q["labelIds"]) {
			hits = append(hits, sm)
		}
	}
	slices.SortStableFunc(hits, func(a, b *storedMessage) int {
		if c := b.m.Date.Compare(a.m.Date); c != 0 {
			return c
		}
		return b.seq - a.seq
	})
	maxResults, _ := strconv.Atoi(q.Get("maxResults"))
	if maxResults > 500 {
		maxResults = 500
	}
	items, next, err := page(hits, q.Get("pageToken"), maxResults, 100)
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	out := []map[string]any{}
	for _, sm := range items {
		out = append(out, map[string]any{"id": sm.id, "threadId": sm.thread})
	}
	body := map[string]any{"resultSizeEstimate": len(hits)}
	if len(out) > 0 {
		body["messages"] = out
	}
	if next != "" {
		body["nextPageToken"] = next
	}
	writeJSON(w, http.StatusOK, body)
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func (s *Server) gmailGet(w http.ResponseWriter, r *http.Request) {
	sm := s.mail.message(r.PathValue("id"))
	if sm == nil {
		Error(w, http.StatusNotFound, "Requested entity was not found.")
		return
	}
	q := r.URL.Query()
	res, err := s.mail.resource(sm, q.Get("format"), q["metadataHeaders"])
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) gmailThread(w http.ResponseWriter, r *http.Request) {
	msgs := s.mail.thread(r.PathValue("id"))
	if len(msgs) == 0 {
		Error(w, http.StatusNotFound, "Requested entity was not found.")
		return
	}
	q := r.URL.Query()
	var out []map[string]any
	for _, sm := range msgs {
		res, err := s.mail.resource(sm, q.Get("format"), q["metadataHeaders"])
		if err != nil {
			Error(w, http.StatusBadRequest, err.Error())
			return
		}
		out = append(out, res)
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "historyId": strconv.Itoa(s.mail.next), "messages": out})
}

type modifyRequest struct {
	AddLabelIDs    []string `json:"addLabelIds"`
	RemoveLabelIDs []string `json:"removeLabelIds"`
}

// readModify reads a modify request, answering 400 for a label id the
// mailbox does not have, as Gmail does.
func (s *Server) readModify(w http.ResponseWriter, r *http.Request) (modifyRequest, bool) {
	var req modifyRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		Error(w, http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		return req, false
	}
	for _, id := range append(slices.Clone(req.AddLabelIDs), req.RemoveLabelIDs...) {
		if !s.mail.knownLabel(id) {
			Error(w, http.StatusBadRequest, "Invalid label: "+id)
			return req, false
		}
	}
	if len(req.AddLabelIDs)+len(req.RemoveLabelIDs) == 0 {
		Error(w, http.StatusBadRequest, "No label add or removes specified")
		return req, false
	}
	return req, true
}

func (sm *storedMessage) modify(req modifyRequest) {
	for _, id := range req.AddLabelIDs {
		if !slices.Contains(sm.labels, id) {
			sm.labels = append(sm.labels, id)
		}
	}
	sm.labels = slices.DeleteFunc(sm.labels, func(id string) bool { return slices.Contains(req.RemoveLabelIDs, id) })
}

func (sm *storedMessage) minimal() map[string]any {
	return map[string]any{"id": sm.id, "threadId": sm.thread, "labelIds": slices.Clone(sm.labels)}
}

func (s *Server) gmailModify(w http.ResponseWriter, r *http.Request) {
	sm := s.mail.message(r.PathValue("id"))
	if sm == nil {
		Error(w, http.StatusNotFound, "Requested entity was not found.")
		return
	}
	req, ok := s.readModify(w, r)
	if !ok {
		return
	}
	sm.modify(req)
	writeJSON(w, http.StatusOK, sm.minimal())
}

func (s *Server) gmailThreadModify(w http.ResponseWriter, r *http.Request) {
	msgs := s.mail.thread(r.PathValue("id"))
	if len(msgs) == 0 {
		Error(w, http.StatusNotFound, "Requested entity was not found.")
		return
	}
	req, ok := s.readModify(w, r)
	if !ok {
		return
	}
	var out []map[string]any
	for _, sm := range msgs {
		sm.modify(req)
		out = append(out, sm.minimal())
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "messages": out})
}

type rawMessage struct {
	Raw      string `json:"raw"`
	ThreadID string `json:"threadId"`
}

func (s *Server) gmailSend(w http.ResponseWriter, r *http.Request) {
	var req rawMessage
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		Error(w, http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		return
	}
	m, sm, ok := s.mail.store(w, req, "SENT")
	if !ok {
		return
	}
	s.mail.sent = append(s.mail.sent, m)
	writeJSON(w, http.StatusOK, sm.minimal())
}

func (s *Server) gmailDraft(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Message rawMessage `json:"message"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		Error(w, http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		return
	}
	m, sm, ok := s.mail.store(w, req.Message, "DRAFT")
	if !ok {
		return
	}
	m.DraftID = "r" + strings.TrimPrefix(sm.id, "18f")
	s.mail.drafts = append(s.mail.drafts, m)
	writeJSON(w, http.StatusOK, map[string]any{"id": m.DraftID, "message": sm.minimal()})
}

// store reads an uploaded raw message, refusing what Gmail refuses (no
// recipient, bad base64), and files it in the mailbox under label.
func (d *mailData) store(w http.ResponseWriter, req rawMessage, label string) (Mail, *storedMessage, bool) {
	raw, err := base64.URLEncoding.DecodeString(req.Raw)
	if err != nil {
		raw, err = base64.RawURLEncoding.DecodeString(req.Raw)
	}
	if err != nil {
		Error(w, http.StatusBadRequest, "Invalid value for ByteString: "+err.Error())
		return Mail{}, nil, false
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		Error(w, http.StatusBadRequest, "Invalid RFC 822 message: "+err.Error())
		return Mail{}, nil, false
	}
	body, err := textBody(msg.Header, msg.Body)
	if err != nil {
		Error(w, http.StatusBadRequest, "Invalid message body: "+err.Error())
		return Mail{}, nil, false
	}
	h := msg.Header
	if label == "SENT" && h.Get("To")+h.Get("Cc")+h.Get("Bcc") == "" {
		Error(w, http.StatusBadRequest, "Invalid To header")
		return Mail{}, nil, false
	}
	dec := new(mime.WordDecoder)
	word := func(k string) string {
		v, err := dec.DecodeHeader(h.Get(k))
		if err != nil {
			return h.Get(k)
		}
		return v
	}
	m := Message{
		From: word("From"), To: word("To"), Cc: word("Cc"), Subject: word("Subject"),
		Plain: body, Labels: []string{label},
		MessageID: h.Get("Message-ID"), InReplyTo: h.Get("In-Reply-To"), References: h.Get("References"),
	}
	if m.From == "" {
		m.From = d.address
	}
	if req.ThreadID != "" && len(d.thread(req.ThreadID)) > 0 {
		m.Thread = req.ThreadID
	}
	id := d.add(m)
	sm := d.message(id)
	return Mail{ID: sm.id, ThreadID: sm.thread, Header: h, Body: body}, sm, true
}

// textBody returns the text/plain body of a message with header h,
// transfer-decoded, looking into multipart bodies for it.
func textBody(h mail.Header, r io.Reader) (string, error) {
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "text/plain"
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(r, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return "", nil
			}
			if err != nil {
				return "", err
			}
			if body, err := textBody(mail.Header(p.Header), p); err != nil || body != "" {
				return body, err
			}
		}
	}
	if mt != "text/plain" {
		return "", nil
	}
	switch strings.ToLower(h.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("the body is not UTF-8")
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n"), nil
}

// resource is the Message resource of sm in format (full when "").
func (d *mailData) resource(sm *storedMessage, format string, only []string) (map[string]any, error) {
	res := sm.minimal()
	res["snippet"] = html.EscapeString(snippet(sm.m)) // Gmail escapes snippets as HTML
	res["internalDate"] = strconv.FormatInt(sm.m.Date.UnixMilli(), 10)
	res["historyId"] = strconv.Itoa(sm.seq)
	size := len(sm.m.Plain) + len(sm.m.HTML)
	for _, a := range sm.m.Attachments {
		size += len(a.Data)
	}
	res["sizeEstimate"] = size
	switch format {
	case "minimal":
		return res, nil
	case "metadata":
		p := sm.payload()
		hs := p["headers"].([]map[string]string)
		if len(only) > 0 {
			hs = slices.DeleteFunc(hs, func(h map[string]string) bool {
				return !slices.ContainsFunc(only, func(o string) bool { return strings.EqualFold(o, h["name"]) })
			})
		}
		res["payload"] = map[string]any{"mimeType": p["mimeType"], "headers": hs}
		return res, nil
	case "", "full":
		res["payload"] = sm.payload()
		return res, nil
	}
	return nil, fmt.Errorf("Invalid value at 'format' (%s): fakegoogle serves full, metadata and minimal", format)
}

func snippet(m Message) string {
	text := m.Plain
	if text == "" {
		text = htmlText(m.HTML)
	}
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > 100 {
		text = string([]rune(text)[:100])
	}
	return text
}

// htmlText is the text of an HTML document, for the fake's snippets and
// searches.
func htmlText(s string) string {
	var b strings.Builder
	z := xhtml.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return b.String()
		case xhtml.TextToken:
			b.Write(z.Text())
			b.WriteByte(' ')
		}
	}
}

func b64(s []byte) string { return base64.URLEncoding.EncodeToString(s) }

// payload is sm's MIME tree the way Gmail shows it: the text in one part
// or a multipart/alternative, attachments beside it in a
// multipart/mixed, bodies base64url, attachments by id only.
func (sm *storedMessage) payload() map[string]any {
	m := sm.m
	headers := []map[string]string{}
	add := func(name, value string) {
		if value != "" {
			headers = append(headers, map[string]string{"name": name, "value": value})
		}
	}
	add("MIME-Version", "1.0")
	add("From", m.From)
	add("To", m.To)
	add("Cc", m.Cc)
	add("Reply-To", m.ReplyTo)
	add("Subject", m.Subject)
	add("Date", m.Date.Format(time.RFC1123Z))
	add("Message-ID", m.MessageID)
	add("In-Reply-To", m.InReplyTo)
	add("References", m.References)

	cs := m.Charset
	if cs == "" {
		cs = "UTF-8"
	}
	leaf := func(partID, mimeType, text string) map[string]any {
		return map[string]any{
			"partId": partID, "mimeType": mimeType, "filename": "",
			"headers": []map[string]string{{"name": "Content-Type", "value": mimeType + "; charset=\"" + cs + "\""}},
			"body":    map[string]any{"size": len(text), "data": b64([]byte(text))},
		}
	}
	textPart := func(partID string) map[string]any {
		prefix := partID
		if prefix != "" {
			prefix += "."
		}
		switch {
		case m.Plain != "" && m.HTML != "":
			return map[string]any{
				"partId": partID, "mimeType": "multipart/alternative", "filename": "",
				"headers": []map[string]string{{"name": "Content-Type", "value": "multipart/alternative; boundary=\"alt\""}},
				"body":    map[string]any{"size": 0},
				"parts":   []map[string]any{leaf(prefix+"0", "text/plain", m.Plain), leaf(prefix+"1", "text/html", m.HTML)},
			}
		case m.HTML != "":
			return leaf(partID, "text/html", m.HTML)
		}
		return leaf(partID, "text/plain", m.Plain)
	}
	var top map[string]any
	if len(m.Attachments) == 0 {
		top = textPart("")
	} else {
		parts := []map[string]any{textPart("0")}
		for i, a := range m.Attachments {
			parts = append(parts, map[string]any{
				"partId": strconv.Itoa(i + 1), "mimeType": a.Type, "filename": a.Name,
				"headers": []map[string]string{
					{"name": "Content-Type", "value": a.Type + "; name=\"" + a.Name + "\""},
					{"name": "Content-Disposition", "value": "attachment; filename=\"" + a.Name + "\""},
				},
				"body": map[string]any{"size": len(a.Data), "attachmentId": fmt.Sprintf("ANGjdJ%s-%d", sm.id, i)},
			})
		}
		top = map[string]any{
			"partId": "", "mimeType": "multipart/mixed", "filename": "",
			"body": map[string]any{"size": 0}, "parts": parts,
		}
		headers = append(headers, map[string]string{"name": "Content-Type", "value": "multipart/mixed; boundary=\"mixed\""})
	}
	if len(m.Attachments) == 0 {
		headers = append(headers, top["headers"].([]map[string]string)...)
	}
	top["headers"] = headers
	return top
}

// query compiles a Gmail search into a filter. It knows the operators a
// person uses most (is:, in:, label:, from:, to:, cc:, subject:,
// has:attachment, after:, before:, newer_than:, older_than:, negation
// with -) and plain words or "quoted phrases", which match the sender,
// recipients, subject and text; it refuses other operators, so a test
// notices what the fake lacks.
func (d *mailData) query(q string, spamTrash bool) (func(*storedMessage) bool, error) {
	var tests []func(*storedMessage) bool
	anywhere := spamTrash
	for _, term := range splitQuery(q) {
		neg := false
		if strings.HasPrefix(term, "-") && len(term) > 1 {
			neg, term = true, term[1:]
		}
		op, arg, isOp := strings.Cut(term, ":")
		if !isOp || strings.HasPrefix(term, `"`) {
			op, arg = "", term
		}
		op = strings.ToLower(op)
		arg = strings.ToLower(strings.Trim(arg, `"`))
		var t func(*storedMessage) bool
		hasLabel := func(id string) func(*storedMessage) bool {
			return func(sm *storedMessage) bool { return slices.Contains(sm.labels, id) }
		}
		contains := func(field func(Message) string) func(*storedMessage) bool {
			return func(sm *storedMessage) bool { return strings.Contains(strings.ToLower(field(sm.m)), arg) }
		}
		switch op {
		case "":
			t = contains(func(m Message) string {
				return strings.Join([]string{m.From, m.To, m.Cc, m.Subject, m.Plain, htmlText(m.HTML)}, "\n")
			})
		case "is":
			switch arg {
			case "unread", "starred", "important":
				t = hasLabel(strings.ToUpper(arg))
			case "read":
				t = func(sm *storedMessage) bool { return !slices.Contains(sm.labels, "UNREAD") }
			default:
				return nil, fmt.Errorf("fakegoogle does not know is:%s", arg)
			}
		case "in":
			switch arg {
			case "anywhere":
				anywhere = true
				continue
			case "inbox", "sent", "spam", "trash", "drafts", "draft":
				if arg == "spam" || arg == "trash" {
					anywhere = true
				}
				t = hasLabel(strings.TrimSuffix(strings.ToUpper(arg), "S")) // drafts: DRAFT
			default:
				return nil, fmt.Errorf("fakegoogle does not know in:%s", arg)
			}
		case "label":
			id := ""
			for _, l := range d.labels {
				if strings.EqualFold(l.name, arg) || strings.EqualFold(strings.ReplaceAll(l.name, " ", "-"), arg) {
					id = l.id
				}
			}
			t = hasLabel(id) // an unknown label matches nothing, as in Gmail
		case "from":
			t = contains(func(m Message) string { return m.From })
		case "to":
			t = contains(func(m Message) string { return m.To + "\n" + m.Cc })
		case "cc":
			t = contains(func(m Message) string { return m.Cc })
		case "subject":
			t = contains(func(m Message) string { return m.Subject })
		case "has":
			if arg != "attachment" {
				return nil, fmt.Errorf("fakegoogle does not know has:%s", arg)
			}
			t = func(sm *storedMessage) bool { return len(sm.m.Attachments) > 0 }
		case "newer_than", "older_than":
			n, err := strconv.Atoi(arg[:max(len(arg)-1, 0)])
			unit := map[string]time.Duration{"h": time.Hour, "d": 24 * time.Hour, "m": 30 * 24 * time.Hour, "y": 365 * 24 * time.Hour}[arg[max(len(arg)-1, 0):]]
			if err != nil || unit == 0 {
				return nil, fmt.Errorf("%s: wants a count and a unit, like 2d", op)
			}
			since := d.clock.Now().Add(-time.Duration(n) * unit)
			newer := op == "newer_than"
			t = func(sm *storedMessage) bool { return sm.m.Date.After(since) == newer }
		case "after", "before":
			day, err := time.ParseInLocation("2006/1/2", arg, time.UTC)
			if err != nil {
				return nil, fmt.Errorf("%s: wants a date YYYY/MM/DD", op)
			}
			after := op == "after"
			t = func(sm *storedMessage) bool { return sm.m.Date.Before(day) != after }
		default:
			return nil, fmt.Errorf("fakegoogle does not know the search operator %s:", op)
		}
		if neg {
			inner := t
			t = func(sm *storedMessage) bool { return !inner(sm) }
		}
		tests = append(tests, t)
	}
	return func(sm *storedMessage) bool {
		if !anywhere && (slices.Contains(sm.labels, "SPAM") || slices.Contains(sm.labels, "TRASH")) {
			return false
		}
		for _, t := range tests {
			if !t(sm) {
				return false
			}
		}
		return true
	}, nil
}

// splitQuery cuts a search at spaces outside double quotes.
func splitQuery(q string) []string {
	var terms []string
	var cur strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				terms = append(terms, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		terms = append(terms, cur.String())
	}
	return terms
}
