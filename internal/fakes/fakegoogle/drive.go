package fakegoogle

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Drive's MIME types for its own kinds of file, which have no bytes of
// their own: they are exported, never downloaded.
const (
	DriveFolder       = "application/vnd.google-apps.folder"
	DriveDocument     = "application/vnd.google-apps.document"
	DriveSpreadsheet  = "application/vnd.google-apps.spreadsheet"
	DrivePresentation = "application/vnd.google-apps.presentation"
	DriveShortcut     = "application/vnd.google-apps.shortcut"
)

// DriveRoot is the id of the owner's My Drive folder, which requests may
// also name by the alias "root".
const DriveRoot = "0AFakeRootFolderOfMyDrive"

// A DriveFile is one file in the fake's Drive.
type DriveFile struct {
	ID       string // AddFile makes one when empty
	Name     string
	MimeType string   // a Google kind (DriveDocument, …) or the bytes' type
	Parents  []string // nil: My Drive's root
	// Content is the file's bytes; for a Google Doc or Slides deck it is
	// the text export, for a Sheet the CSV export.
	Content  []byte
	Modified time.Time // zero: when it was added
	Trashed  bool
	Target   string // a shortcut's (DriveShortcut) target file id
}

// google reports whether f is one of Drive's own kinds, which export but
// do not download and have no size.
func (f *DriveFile) google() bool {
	return strings.HasPrefix(f.MimeType, "application/vnd.google-apps.")
}

// exports is what a Google kind of file exports to in the fake: the text
// formats Google offers for it.
func exports(mimeType string) []string {
	switch mimeType {
	case DriveDocument:
		return []string{"text/plain", "text/markdown"}
	case DriveSpreadsheet:
		return []string{"text/csv"}
	case DrivePresentation:
		return []string{"text/plain"}
	}
	return nil
}

// driveData is the fake's Drive v3 state, guarded by Server.mu.
type driveData struct {
	files []*DriveFile // in the order added
	seq   int
}

func newDriveData() *driveData {
	return &driveData{files: []*DriveFile{{ID: DriveRoot, Name: "My Drive", MimeType: DriveFolder, Modified: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}}}
}

func (d *driveData) byID(id string) *DriveFile {
	if id == "root" {
		id = DriveRoot
	}
	for _, f := range d.files {
		if f.ID == id {
			return f
		}
	}
	return nil
}

func (d *driveData) add(f DriveFile, now time.Time) *DriveFile {
	if f.ID == "" {
		d.seq++
		f.ID = fmt.Sprintf("1FakeDriveFile%04d", d.seq)
	}
	f.Parents = slices.Clone(f.Parents)
	if len(f.Parents) == 0 {
		f.Parents = []string{DriveRoot}
	}
	for i, p := range f.Parents {
		if p == "root" {
			f.Parents[i] = DriveRoot
		}
	}
	if f.Modified.IsZero() {
		f.Modified = now
	}
	f.Content = slices.Clone(f.Content)
	d.files = append(d.files, &f)
	return &f
}

// AddFile puts f into the fake's Drive and returns its id.
func (s *Server) AddFile(f DriveFile) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.drive.add(f, time.Now().UTC()).ID
}

// File returns a copy of the file with id, as the fake holds it now.
func (s *Server) File(id string) (DriveFile, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.drive.byID(id)
	if f == nil {
		return DriveFile{}, false
	}
	c := *f
	c.Parents = slices.Clone(f.Parents)
	c.Content = slices.Clone(f.Content)
	return c, true
}

// driveRoutes serves Drive v3 below /drive/v3/ and /upload/drive/v3/.
func (s *Server) driveRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /drive/v3/files", s.driveList)
	mux.HandleFunc("GET /drive/v3/files/{id}", s.driveGet)
	mux.HandleFunc("GET /drive/v3/files/{id}/export", s.driveExport)
	mux.HandleFunc("POST /drive/v3/files", s.driveCreate)
	mux.HandleFunc("POST /upload/drive/v3/files", s.driveUpload)
}

func (s *Server) driveList(w http.ResponseWriter, r *http.Request) {
	qs := r.URL.Query()
	match := func(*DriveFile) bool { return true }
	if q := qs.Get("q"); q != "" {
		m, err := parseDriveQuery(q)
		if err != nil {
			Error(w, http.StatusBadRequest, "Invalid Value: "+err.Error())
			return
		}
		match = m.match
		if hasFullText(m) && qs.Get("orderBy") != "" {
			// Google's own answer, a 403 although the request is at fault.
			Error(w, http.StatusForbidden, "Sorting is not supported for queries with fullText terms. Results are always in descending relevance order.")
			return
		}
	}
	less, err := driveOrder(qs.Get("orderBy"))
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	fields, err := driveFields(qs.Get("fields"), true)
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	size := 100
	if v := qs.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			Error(w, http.StatusBadRequest, "Invalid value for pageSize: "+v)
			return
		}
		size = n
	}
	s.mu.Lock()
	var hits []*DriveFile
	for _, f := range s.drive.files {
		if f.ID != DriveRoot && match(f) {
			hits = append(hits, f)
		}
	}
	slices.SortStableFunc(hits, less)
	got, next, err := page(hits, qs.Get("pageToken"), size, size)
	var out []map[string]any
	for _, f := range got {
		out = append(out, fields.show(s.drive, f))
	}
	s.mu.Unlock()
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	body := map[string]any{}
	if fields.top["kind"] {
		body["kind"] = "drive#fileList"
	}
	if fields.top["incompleteSearch"] {
		body["incompleteSearch"] = false
	}
	if fields.top["nextPageToken"] && next != "" {
		body["nextPageToken"] = next
	}
	if fields.top["files"] {
		body["files"] = out
	}
	writeJSON(w, http.StatusOK, body)
}

// driveFile is a copy of the file the request's path names; when there is
// none it answers 404 and ok is false.
func (s *Server) driveFile(w http.ResponseWriter, r *http.Request) (c DriveFile, ok bool) {
	s.mu.Lock()
	f := s.drive.byID(r.PathValue("id"))
	if f != nil {
		c = *f
	}
	s.mu.Unlock()
	if f == nil {
		Error(w, http.StatusNotFound, "File not found: "+r.PathValue("id")+".")
		return c, false
	}
	return c, true
}

func (s *Server) driveGet(w http.ResponseWriter, r *http.Request) {
	c, ok := s.driveFile(w, r)
	if !ok {
		return
	}
	if r.URL.Query().Get("alt") == "media" {
		if c.google() {
			Error(w, http.StatusForbidden, "Only files with binary content can be downloaded. Use Export with Docs Editors files.")
			return
		}
		w.Header().Set("Content-Type", c.MimeType)
		w.Header().Set("Content-Length", strconv.Itoa(len(c.Content)))
		_, _ = w.Write(c.Content) // the client went away; nothing to tell it
		return
	}
	fields, err := driveFields(r.URL.Query().Get("fields"), false)
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	body := fields.show(s.drive, &c)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) driveExport(w http.ResponseWriter, r *http.Request) {
	c, ok := s.driveFile(w, r)
	if !ok {
		return
	}
	want := r.URL.Query().Get("mimeType")
	if !c.google() {
		Error(w, http.StatusForbidden, "Export only supports Docs Editors files.")
		return
	}
	if want == "" || !slices.Contains(exports(c.MimeType), want) {
		Error(w, http.StatusBadRequest, "The requested conversion is not supported.")
		return
	}
	body := c.Content
	if c.MimeType == DriveDocument && want == "text/plain" {
		// Google's text export of a Doc begins with a byte order mark.
		body = append([]byte("\ufeff"), body...)
	}
	w.Header().Set("Content-Type", want+"; charset=utf-8")
	_, _ = w.Write(body) // the client went away; nothing to tell it
}

// driveCreate makes a file from metadata alone, as for a folder.
func (s *Server) driveCreate(w http.ResponseWriter, r *http.Request) {
	var meta driveMeta
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil {
		Error(w, http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		return
	}
	s.create(w, r, meta, nil, "")
}

// driveUpload makes a file from metadata and content sent as one
// multipart/related request (uploadType=multipart), the way the client
// sends anything smaller than a chunk.
func (s *Server) driveUpload(w http.ResponseWriter, r *http.Request) {
	if t := r.URL.Query().Get("uploadType"); t != "multipart" {
		Error(w, http.StatusBadRequest, fmt.Sprintf("the fake serves uploadType=multipart only, not %q", t))
		return
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/related" || params["boundary"] == "" {
		Error(w, http.StatusBadRequest, "Bad content type. Please use multipart/related.")
		return
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	metaPart, err := mr.NextPart()
	if err != nil {
		Error(w, http.StatusBadRequest, "Missing metadata part: "+err.Error())
		return
	}
	var meta driveMeta
	if err := json.NewDecoder(metaPart).Decode(&meta); err != nil {
		Error(w, http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		return
	}
	mediaPart, err := mr.NextPart()
	if err != nil {
		Error(w, http.StatusBadRequest, "Missing media part: "+err.Error())
		return
	}
	content, err := io.ReadAll(mediaPart)
	if err != nil {
		Error(w, http.StatusBadRequest, "Unreadable media part: "+err.Error())
		return
	}
	mediaType, _, _ := mime.ParseMediaType(mediaPart.Header.Get("Content-Type"))
	s.create(w, r, meta, content, mediaType)
}

// driveMeta is the file metadata a create request carries.
type driveMeta struct {
	Name     string   `json:"name"`
	MimeType string   `json:"mimeType"`
	Parents  []string `json:"parents"`
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, meta driveMeta, content []byte, mediaType string) {
	fields, err := driveFields(r.URL.Query().Get("fields"), false)
	if err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if meta.MimeType == "" {
		meta.MimeType = mediaType
	}
	if meta.MimeType == "" {
		meta.MimeType = "application/octet-stream"
	}
	if meta.Name == "" {
		meta.Name = "Untitled"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range meta.Parents {
		if parent := s.drive.byID(p); parent == nil || parent.MimeType != DriveFolder {
			Error(w, http.StatusNotFound, "File not found: "+p+".")
			return
		}
	}
	f := s.drive.add(DriveFile{Name: meta.Name, MimeType: meta.MimeType, Parents: meta.Parents, Content: content}, time.Now().UTC())
	writeJSON(w, http.StatusOK, fields.show(s.drive, f))
}

// driveFileFields are the file fields the fake knows, and so accepts in a
// field mask.
func driveFileFields() []string {
	return []string{"kind", "id", "name", "mimeType", "parents", "modifiedTime", "size", "trashed", "webViewLink", "shortcutDetails"}
}

// fieldMask is a parsed fields parameter: the list's top-level fields and
// the file fields to show.
type fieldMask struct {
	top  map[string]bool
	file map[string]bool
}

// driveFields parses a fields parameter such as
// "nextPageToken,files(id,name)" (list) or "id,name,size" (get), with
// Google's defaults when it is empty, and refuses fields Drive does not
// have, as Google does.
func driveFields(v string, list bool) (fieldMask, error) {
	m := fieldMask{top: map[string]bool{}, file: map[string]bool{}}
	all := func(set map[string]bool, names []string) {
		for _, n := range names {
			set[n] = true
		}
	}
	if strings.TrimSpace(v) == "" {
		all(m.top, []string{"kind", "nextPageToken", "incompleteSearch", "files"})
		all(m.file, []string{"kind", "id", "name", "mimeType"})
		return m, nil
	}
	fileField := func(n string) error {
		if name, inner, ok := strings.Cut(n, "("); ok && name == "shortcutDetails" {
			for _, sub := range splitFields(strings.TrimSuffix(inner, ")")) {
				if sub != "targetId" && sub != "targetMimeType" {
					return fmt.Errorf("Invalid field selection %s", sub)
				}
			}
			n = name // the fake shows both of its fields
		}
		switch {
		case n == "*":
			all(m.file, driveFileFields())
		case slices.Contains(driveFileFields(), n):
			m.file[n] = true
		default:
			return fmt.Errorf("Invalid field selection %s", n)
		}
		return nil
	}
	for _, part := range splitFields(v) {
		if !list {
			if err := fileField(part); err != nil {
				return m, err
			}
			continue
		}
		name, inner, nested := strings.Cut(part, "(")
		name = strings.TrimSpace(name)
		switch name {
		case "kind", "nextPageToken", "incompleteSearch":
			if nested {
				return m, fmt.Errorf("Invalid field selection %s", part)
			}
			m.top[name] = true
		case "files":
			m.top["files"] = true
			if !nested {
				all(m.file, driveFileFields())
				continue
			}
			for _, n := range splitFields(strings.TrimSuffix(inner, ")")) {
				if err := fileField(n); err != nil {
					return m, err
				}
			}
		case "*":
			all(m.top, []string{"kind", "nextPageToken", "incompleteSearch", "files"})
			all(m.file, driveFileFields())
		default:
			return m, fmt.Errorf("Invalid field selection %s", name)
		}
	}
	return m, nil
}

// splitFields splits a field list on the commas outside parentheses.
func splitFields(v string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range v {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(v[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(v[start:]); last != "" {
		out = append(out, last)
	}
	return out
}

// show is f's JSON as Drive shows it, cut to the mask; d (locked) holds
// a shortcut's target.
func (m fieldMask) show(d *driveData, f *DriveFile) map[string]any {
	full := map[string]any{
		"kind":         "drive#file",
		"id":           f.ID,
		"name":         f.Name,
		"mimeType":     f.MimeType,
		"modifiedTime": f.Modified.UTC().Format(time.RFC3339Nano),
		"trashed":      f.Trashed,
		"webViewLink":  driveLink(f),
	}
	if f.ID != DriveRoot {
		full["parents"] = f.Parents
	}
	if f.MimeType == DriveShortcut {
		details := map[string]any{"targetId": f.Target}
		if t := d.byID(f.Target); t != nil {
			details["targetMimeType"] = t.MimeType
		}
		full["shortcutDetails"] = details
	}
	if !f.google() {
		full["size"] = strconv.Itoa(len(f.Content)) // int64 fields travel as strings
	}
	out := map[string]any{}
	for k, v := range full {
		if m.file[k] {
			out[k] = v
		}
	}
	return out
}

func driveLink(f *DriveFile) string {
	switch f.MimeType {
	case DriveFolder:
		return "https://drive.google.com/drive/folders/" + f.ID
	case DriveDocument:
		return "https://docs.google.com/document/d/" + f.ID + "/edit?usp=drivesdk"
	case DriveSpreadsheet:
		return "https://docs.google.com/spreadsheets/d/" + f.ID + "/edit?usp=drivesdk"
	case DrivePresentation:
		return "https://docs.google.com/presentation/d/" + f.ID + "/edit?usp=drivesdk"
	}
	return "https://drive.google.com/file/d/" + f.ID + "/view?usp=drivesdk"
}

// driveOrder parses orderBy ("folder,modifiedTime desc,name") into a
// comparison; with none, the newest file comes first.
func driveOrder(v string) (func(a, b *DriveFile) int, error) {
	type key struct {
		name string
		desc bool
	}
	var keys []key
	for _, part := range strings.Split(v, ",") {
		words := strings.Fields(part)
		if len(words) == 0 {
			continue
		}
		k := key{name: words[0]}
		switch {
		case len(words) == 2 && words[1] == "desc":
			k.desc = true
		case len(words) != 1:
			return nil, fmt.Errorf("Invalid orderBy %q", part)
		}
		switch k.name {
		case "folder", "name", "name_natural", "modifiedTime":
		default:
			return nil, fmt.Errorf("Invalid orderBy key %q", k.name)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		keys = []key{{name: "modifiedTime", desc: true}}
	}
	return func(a, b *DriveFile) int {
		for _, k := range keys {
			var c int
			switch k.name {
			case "folder":
				// Folders first when ascending, as Drive shows them.
				c = boolRank(a.MimeType != DriveFolder) - boolRank(b.MimeType != DriveFolder)
			case "name", "name_natural":
				c = strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
			case "modifiedTime":
				c = a.Modified.Compare(b.Modified)
			}
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// driveCond is a parsed q: the subset of Drive's query language the fake
// understands (name, fullText, mimeType, parents and trashed terms, with
// and, or, not and parentheses). Anything else is refused as Google
// refuses a query it cannot parse, so a tool that builds a bad query fails
// here as it would there.
type driveCond interface{ match(f *DriveFile) bool }

type (
	andCond  []driveCond
	orCond   []driveCond
	notCond  struct{ c driveCond }
	termCond struct {
		field, op, value string
	}
)

func (c andCond) match(f *DriveFile) bool {
	for _, x := range c {
		if !x.match(f) {
			return false
		}
	}
	return true
}

func (c orCond) match(f *DriveFile) bool {
	for _, x := range c {
		if x.match(f) {
			return true
		}
	}
	return false
}

func (c notCond) match(f *DriveFile) bool { return !c.c.match(f) }

// compare matches v by the term's operator: = and != whole, contains by
// has.
func (c termCond) compare(v string, has func(v, value string) bool) bool {
	switch c.op {
	case "=":
		return v == c.value
	case "!=":
		return v != c.value
	}
	return has(v, c.value)
}

func (c termCond) match(f *DriveFile) bool {
	switch c.field {
	case "parents":
		id := c.value
		if id == "root" {
			id = DriveRoot
		}
		return slices.Contains(f.Parents, id)
	case "trashed":
		return strconv.FormatBool(f.Trashed) == c.value
	case "name":
		return c.compare(f.Name, wordPrefix)
	case "mimeType":
		return c.compare(f.MimeType, strings.Contains)
	case "fullText":
		// Every word of the value, in the name or the text.
		text := strings.ToLower(f.Name + " " + string(f.Content))
		for _, w := range strings.Fields(strings.ToLower(c.value)) {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	}
	return false
}

// hasFullText reports whether c has a fullText term, which Drive ranks by
// relevance and will not sort.
func hasFullText(c driveCond) bool {
	switch c := c.(type) {
	case andCond:
		return slices.ContainsFunc(c, hasFullText)
	case orCond:
		return slices.ContainsFunc(c, hasFullText)
	case notCond:
		return hasFullText(c.c)
	case termCond:
		return c.field == "fullText"
	}
	return false
}

// wordPrefix reports whether sub begins a word of s, ignoring case: Drive
// matches a name term by prefix, so "name contains 'port'" does not find
// "Report".
func wordPrefix(s, sub string) bool {
	s, sub = strings.ToLower(s), strings.ToLower(sub)
	for i := 0; i <= len(s)-len(sub); i++ {
		if strings.HasPrefix(s[i:], sub) {
			if i == 0 {
				return true
			}
			if r, _ := utf8.DecodeLastRuneInString(s[:i]); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return true
			}
		}
	}
	return false
}

// parseDriveQuery parses q.
func parseDriveQuery(q string) (driveCond, error) {
	toks, err := driveTokens(q)
	if err != nil {
		return nil, err
	}
	p := &queryParser{toks: toks}
	c, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("unexpected %q", p.toks[p.pos].text)
	}
	return c, nil
}

type queryToken struct {
	text string
	str  bool // a quoted string, text unescaped
}

// driveTokens splits q into words, operators, parentheses and strings;
// a string is in single quotes with \' and \\ the only escapes.
func driveTokens(q string) ([]queryToken, error) {
	var toks []queryToken
	rs := []rune(q)
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '(' || c == ')' || c == '=':
			toks = append(toks, queryToken{text: string(c)})
			i++
		case c == '!' || c == '<' || c == '>':
			if i+1 < len(rs) && rs[i+1] == '=' {
				toks = append(toks, queryToken{text: string(rs[i : i+2])})
				i += 2
				continue
			}
			if c == '!' {
				return nil, fmt.Errorf("stray '!'")
			}
			toks = append(toks, queryToken{text: string(c)})
			i++
		case c == '\'':
			var b strings.Builder
			i++
			for {
				if i >= len(rs) {
					return nil, fmt.Errorf("unterminated string")
				}
				if rs[i] == '\\' {
					if i+1 >= len(rs) || (rs[i+1] != '\'' && rs[i+1] != '\\') {
						return nil, fmt.Errorf("bad escape in string")
					}
					b.WriteRune(rs[i+1])
					i += 2
					continue
				}
				if rs[i] == '\'' {
					i++
					break
				}
				b.WriteRune(rs[i])
				i++
			}
			toks = append(toks, queryToken{text: b.String(), str: true})
		case unicode.IsLetter(c):
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			toks = append(toks, queryToken{text: string(rs[i:j])})
			i = j
		default:
			return nil, fmt.Errorf("unexpected %q", c)
		}
	}
	return toks, nil
}

type queryParser struct {
	toks []queryToken
	pos  int
}

func (p *queryParser) peekWord(w string) bool {
	return p.pos < len(p.toks) && !p.toks[p.pos].str && p.toks[p.pos].text == w
}

func (p *queryParser) next() (queryToken, error) {
	if p.pos >= len(p.toks) {
		return queryToken{}, fmt.Errorf("query ends too soon")
	}
	p.pos++
	return p.toks[p.pos-1], nil
}

// or: and { "or" and }; and binds tighter, as in Drive.
func (p *queryParser) or() (driveCond, error) {
	return p.joined("or", p.and, func(cs []driveCond) driveCond { return orCond(cs) })
}

func (p *queryParser) and() (driveCond, error) {
	return p.joined("and", p.unary, func(cs []driveCond) driveCond { return andCond(cs) })
}

// joined parses one or more of next separated by the word sep; more than
// one are joined by join.
func (p *queryParser) joined(sep string, next func() (driveCond, error), join func([]driveCond) driveCond) (driveCond, error) {
	var cs []driveCond
	for {
		c, err := next()
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
		if !p.peekWord(sep) {
			break
		}
		p.pos++
	}
	if len(cs) == 1 {
		return cs[0], nil
	}
	return join(cs), nil
}

func (p *queryParser) unary() (driveCond, error) {
	if p.peekWord("not") {
		p.pos++
		c, err := p.unary()
		return notCond{c}, err
	}
	if p.peekWord("(") {
		p.pos++
		c, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.peekWord(")") {
			return nil, fmt.Errorf("missing ')'")
		}
		p.pos++
		return c, nil
	}
	return p.term()
}

// term: 'value' in parents | field op value.
func (p *queryParser) term() (driveCond, error) {
	first, err := p.next()
	if err != nil {
		return nil, err
	}
	if first.str {
		in, err := p.next()
		if err != nil || in.str || in.text != "in" {
			return nil, fmt.Errorf("expected 'in' after %q", first.text)
		}
		field, err := p.next()
		if err != nil || field.str || field.text != "parents" {
			return nil, fmt.Errorf("the fake knows 'in parents' only")
		}
		return termCond{field: "parents", op: "in", value: first.text}, nil
	}
	op, err := p.next()
	if err != nil || op.str {
		return nil, fmt.Errorf("expected an operator after %s", first.text)
	}
	val, err := p.next()
	if err != nil {
		return nil, err
	}
	t := termCond{field: first.text, op: op.text, value: val.text}
	ok := false
	switch first.text {
	case "name", "mimeType":
		ok = val.str && (op.text == "contains" || op.text == "=" || op.text == "!=")
	case "fullText":
		ok = val.str && op.text == "contains"
	case "trashed":
		ok = !val.str && (op.text == "=" || op.text == "!=") && (val.text == "true" || val.text == "false")
		if ok && op.text == "!=" {
			t.op, t.value = "=", strconv.FormatBool(val.text != "true")
		}
	}
	if !ok {
		return nil, fmt.Errorf("the term %s %s %q is not one Drive accepts here", first.text, op.text, val.text)
	}
	return t, nil
}
