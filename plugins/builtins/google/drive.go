package google

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// Drive's MIME types for its own kinds of file, which are exported as
// text rather than downloaded.
const (
	mimeFolder       = "application/vnd.google-apps.folder"
	mimeDocument     = "application/vnd.google-apps.document"
	mimeSpreadsheet  = "application/vnd.google-apps.spreadsheet"
	mimePresentation = "application/vnd.google-apps.presentation"
	mimeShortcut     = "application/vnd.google-apps.shortcut"
)

const (
	// maxRead bounds what read_file takes from Drive: far more than one
	// answer shows, so offset can page through a long document, but a
	// huge file is not pulled in whole.
	maxRead = 1 << 20
	// maxUpload bounds upload_file's content: a small text file, sent in
	// one request.
	maxUpload = 5 << 20
	// fileFields are the file fields the tools show.
	fileFields = "id,name,mimeType,modifiedTime,size,webViewLink,shortcutDetails(targetId,targetMimeType)"
)

// DriveTools are the Google Drive plugin's tools: search, read, list a
// folder (safe), and upload a small text file (monitor: it adds to the
// owner's Drive but removes or shares nothing).
func DriveTools(o Options) []native.Tool {
	d := driveTools{o: o}
	return []native.Tool{
		{
			Name:        "search_files",
			Description: "Search the owner's Google Drive for files whose name or text contains the words, optionally only documents, spreadsheets, presentations, PDFs, folders or images. Returns numbered files with kind, last change, size and the file id for read_file or list_folder.",
			Schema:      `{"type":"object","properties":{"query":{"type":"string","description":"words in the file's name or contents; empty lists the most recently changed files"},"type":{"type":"string","enum":["document","spreadsheet","presentation","pdf","folder","image"],"description":"only files of this kind"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"how many files (default 10)"},"page_token":{"type":"string","description":"the token a previous search gave, for its next page"}}}`,
			Tier:        catalog.TierSafe,
			Run:         d.search,
		},
		{
			Name:        "read_file",
			Description: "Read a Google Drive file's text by its id: Google Docs and Slides as plain text, Sheets as CSV, text, Markdown, CSV, JSON and XML files as they are. PDFs, images and other binary files cannot be read as text. A long text is cut; offset reads on from where it was cut.",
			Schema:      `{"type":"object","properties":{"file_id":{"type":"string","description":"the file's id, from search_files or list_folder"},"offset":{"type":"integer","minimum":0,"description":"characters to skip, to read on in a long file"}},"required":["file_id"]}`,
			Tier:        catalog.TierSafe,
			Run:         d.read,
		},
		{
			Name:        "list_folder",
			Description: "List the files in a Google Drive folder, folders first then by name, with kind, last change, size and file ids. Without folder_id it lists the top of My Drive.",
			Schema:      `{"type":"object","properties":{"folder_id":{"type":"string","description":"the folder's id; default root, the top of My Drive"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"how many files (default 10)"},"page_token":{"type":"string","description":"the token a previous listing gave, for its next page"}}}`,
			Tier:        catalog.TierSafe,
			Run:         d.list,
		},
		{
			Name:        "upload_file",
			Description: "Upload a small text file (up to 5 MiB) to the owner's Google Drive, into a folder or the top of My Drive. Returns the new file's id and link.",
			Schema:      `{"type":"object","properties":{"name":{"type":"string","description":"the file name, e.g. notes.txt"},"content":{"type":"string","description":"the file's text"},"mime_type":{"type":"string","description":"a text type such as text/plain (default), text/markdown, text/csv or application/json"},"folder_id":{"type":"string","description":"the folder to put it in; default the top of My Drive"}},"required":["name","content"]}`,
			Tier:        catalog.TierMonitor,
			Run:         d.upload,
			Describe:    d.describeUpload,
		},
	}
}

type driveTools struct{ o Options }

// kindQuery is the Drive query term for each kind search_files offers.
func kindQuery(kind string) (string, bool) {
	switch kind {
	case "document":
		return "mimeType = '" + mimeDocument + "'", true
	case "spreadsheet":
		return "mimeType = '" + mimeSpreadsheet + "'", true
	case "presentation":
		return "mimeType = '" + mimePresentation + "'", true
	case "pdf":
		return "mimeType = 'application/pdf'", true
	case "folder":
		return "mimeType = '" + mimeFolder + "'", true
	case "image":
		return "mimeType contains 'image/'", true
	}
	return "", false
}

// quote makes s a string literal of Drive's query language, where a
// quote and a backslash are escaped with a backslash.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func (d driveTools) search(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Query     string `json:"query"`
		Type      string `json:"type"`
		Limit     int    `json:"limit"`
		PageToken string `json:"page_token"`
	}
	if err := native.Decode(args, &in); err != nil {
		return "", err
	}
	words := strings.TrimSpace(in.Query)
	kind := strings.ToLower(strings.TrimSpace(in.Type))
	var terms []string
	if words != "" {
		terms = append(terms, "(name contains "+quote(words)+" or fullText contains "+quote(words)+")")
	}
	if kind != "" {
		t, ok := kindQuery(kind)
		if !ok {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "type %q is not one of document, spreadsheet, presentation, pdf, folder, image", in.Type)
		}
		terms = append(terms, t)
	}
	terms = append(terms, "trashed = false")
	query := fileQuery{Q: strings.Join(terms, " and "), PageSize: native.Limit(in.Limit, 10, 50), PageToken: in.PageToken}
	if words == "" {
		// Drive ranks a text search by relevance and refuses to sort one;
		// without words the newest files are the useful ones.
		query.OrderBy = "modifiedTime desc"
	}
	res, err := d.o.driveAPI().listFiles(ctx, query)
	if err != nil {
		return "", apiError(err, "search Google Drive")
	}
	what := "files"
	if kind != "" {
		what = kind + " files"
	}
	if words != "" {
		what += " matching " + fmt.Sprintf("%q", words)
	}
	if len(res.Files) == 0 {
		if in.PageToken != "" {
			return "No more " + what + ".", nil
		}
		return "No " + what + " in Google Drive.", nil
	}
	return d.listing("Google Drive "+what+":", res.Files, res.NextPageToken), nil
}

func (d driveTools) list(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		FolderID  string `json:"folder_id"`
		Limit     int    `json:"limit"`
		PageToken string `json:"page_token"`
	}
	if err := native.Decode(args, &in); err != nil {
		return "", err
	}
	id := strings.TrimSpace(in.FolderID)
	if id == "" {
		id = "root"
	}
	svc := d.o.driveAPI()
	// The folder itself first: its name heads the listing, and a wrong id
	// or a file that is no folder is said plainly instead of listed empty.
	folder, err := open(ctx, svc, id)
	if err != nil {
		return "", apiError(err, "open Google Drive folder "+id)
	}
	if folder.MimeType != mimeFolder {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s (%s) is not a folder but a file (%s); read it with read_file", folder.Name, id, kindOf(folder.MimeType))
	}
	res, err := svc.listFiles(ctx, fileQuery{
		Q:       quote(folder.ID) + " in parents and trashed = false",
		OrderBy: "folder,name", PageSize: native.Limit(in.Limit, 10, 50), PageToken: in.PageToken,
	})
	if err != nil {
		return "", apiError(err, "list Google Drive folder "+folder.Name)
	}
	if len(res.Files) == 0 {
		if in.PageToken != "" {
			return "No more files in folder " + folder.Name + ".", nil
		}
		return "Folder " + folder.Name + " is empty.", nil
	}
	return d.listing("Folder "+folder.Name+" (id "+folder.ID+"):", res.Files, res.NextPageToken), nil
}

// listing is files as numbered lines under head, with the next page's
// token when there is one.
func (d driveTools) listing(head string, files []*file, next string) string {
	var b strings.Builder
	b.WriteString(head)
	for i, f := range files {
		fmt.Fprintf(&b, "\n%d. %s — %s", i+1, native.OneLine(f.Name), describe(f))
		if t, err := time.Parse(time.RFC3339, f.ModifiedTime); err == nil {
			b.WriteString(", modified " + t.In(d.o.loc()).Format("Mon 2 Jan 2006 15:04"))
		}
		if f.Size > 0 {
			b.WriteString(", " + byteSize(f.Size))
		}
		b.WriteString(", id " + f.ID)
	}
	if next != "" {
		fmt.Fprintf(&b, "\nMore files: call again with page_token %q.", next)
	}
	return b.String()
}

func (d driveTools) read(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		FileID string `json:"file_id"`
		Offset int    `json:"offset"`
	}
	if err := native.Decode(args, &in); err != nil {
		return "", err
	}
	id := strings.TrimSpace(in.FileID)
	if id == "" {
		return "", native.Need("file_id")
	}
	if in.Offset < 0 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "offset must be 0 or more")
	}
	svc := d.o.driveAPI()
	f, err := open(ctx, svc, id)
	if err != nil {
		return "", apiError(err, "read Google Drive file "+id)
	}
	// A name may be long (Drive allows kilobytes); the text needs the room.
	name := native.OneLine(native.Clip(f.Name, 300))
	var resp *http.Response
	switch {
	case f.MimeType == mimeFolder:
		return fmt.Sprintf("%s (%s) is a folder; list it with list_folder.", name, f.ID), nil
	case exportAs(f.MimeType) != "":
		resp, err = svc.export(ctx, f.ID, exportAs(f.MimeType))
	case isText(f.MimeType):
		resp, err = svc.download(ctx, f.ID)
	default:
		// Not an error: the model should tell the owner, not try again.
		what := kindOf(f.MimeType)
		if f.Size > 0 {
			what += ", " + byteSize(f.Size)
		}
		return fmt.Sprintf("%s (%s) is not text (%s); its contents cannot be read here. The owner can open it at %s", name, f.ID, what, f.WebViewLink), nil
	}
	if err != nil {
		return "", apiError(err, "read Google Drive file "+name)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxRead+1))
	if err != nil {
		return "", apiError(err, "read Google Drive file "+name)
	}
	more := len(raw) > maxRead
	if more {
		raw = raw[:maxRead]
		// The cut may have split a character: drop its first bytes.
		for range utf8.UTFMax - 1 {
			if r, size := utf8.DecodeLastRune(raw); r != utf8.RuneError || size != 1 {
				break
			}
			raw = raw[:len(raw)-1]
		}
	}
	// Google's text export of a Doc begins with a byte order mark.
	text := strings.TrimPrefix(strings.ToValidUTF8(string(raw), "\uFFFD"), "\uFEFF")
	kind := kindOf(f.MimeType)
	if f.MimeType == mimeSpreadsheet {
		kind += ", its first sheet as CSV"
	}
	head := fmt.Sprintf("%s (%s, id %s)", name, kind, f.ID)
	if in.Offset > 0 {
		skip := in.Offset
		for i := range text {
			if skip == 0 {
				text = text[i:]
				break
			}
			skip--
		}
		if skip > 0 {
			if more {
				return fmt.Sprintf("%s: read_file fetches only the first %s of a file, and character %d lies beyond it.", head, byteSize(maxRead), in.Offset), nil
			}
			return fmt.Sprintf("%s has no text after character %d.", head, in.Offset), nil
		}
		head += fmt.Sprintf(", from character %d", in.Offset)
	}
	// Leave room in the answer for the head and the notes below.
	body := native.Clip(text, max(native.MaxResult-len(head)-400, 1000))
	out := head + ":\n\n" + body
	if shown := strings.LastIndex(body, "\n[… "); body != text && shown >= 0 {
		out += fmt.Sprintf("\nTo read on, call read_file with offset %d.", in.Offset+utf8.RuneCountInString(body[:shown]))
	}
	if more {
		out += fmt.Sprintf("\n(Only the first %s of the file were fetched.)", byteSize(maxRead))
	}
	return out, nil
}

// open gets the file with id, or the target of the shortcut with id: a
// search finds shortcuts as readily as files, and the model means what
// they point to.
func open(ctx context.Context, svc driveAPI, id string) (*file, error) {
	f, err := svc.getFile(ctx, id)
	if err != nil || f.MimeType != mimeShortcut || f.ShortcutDetails == nil || f.ShortcutDetails.TargetID == "" {
		return f, err
	}
	return svc.getFile(ctx, f.ShortcutDetails.TargetID)
}

// describe words a file's kind, a shortcut's by what it points to.
func describe(f *file) string {
	if f.MimeType == mimeShortcut && f.ShortcutDetails != nil && f.ShortcutDetails.TargetMimeType != "" {
		return "shortcut to " + kindOf(f.ShortcutDetails.TargetMimeType)
	}
	return kindOf(f.MimeType)
}

// exportAs is the text format a Google kind of file is exported in, ""
// for a file that is not exported.
func exportAs(mimeType string) string {
	switch mimeType {
	case mimeDocument, mimePresentation:
		return "text/plain"
	case mimeSpreadsheet:
		return "text/csv" // the first sheet
	}
	return ""
}

// isText reports whether a file of mimeType downloads as text.
func isText(mimeType string) bool {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return false
	}
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/csv", "application/x-yaml", "application/yaml",
		"application/javascript", "application/x-sh", "application/sql", "application/x-ndjson", "application/toml":
		return true
	}
	return false
}

// kindOf words a MIME type for the model.
func kindOf(mimeType string) string {
	switch mimeType {
	case mimeFolder:
		return "folder"
	case mimeDocument:
		return "Google Doc"
	case mimeSpreadsheet:
		return "Google Sheet"
	case mimePresentation:
		return "Google Slides"
	case "application/vnd.google-apps.form":
		return "Google Form"
	case "application/vnd.google-apps.drawing":
		return "Google Drawing"
	case "application/vnd.google-apps.shortcut":
		return "shortcut"
	case "application/pdf":
		return "PDF"
	case "text/plain":
		return "text file"
	case "text/markdown":
		return "Markdown file"
	case "text/csv":
		return "CSV file"
	case "application/json":
		return "JSON file"
	}
	if kind, sub, ok := strings.Cut(mimeType, "/"); ok && (kind == "image" || kind == "video" || kind == "audio") {
		return kind + " (" + sub + ")"
	}
	if mimeType == "" {
		return "file"
	}
	return mimeType + " file"
}

// byteSize words n bytes.
func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

func (d driveTools) upload(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Name     string `json:"name"`
		Content  string `json:"content"`
		MimeType string `json:"mime_type"`
		FolderID string `json:"folder_id"`
	}
	if err := native.Decode(args, &in); err != nil {
		return "", err
	}
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		return "", native.Need("name")
	case in.Content == "":
		return "", native.Need("content")
	case len(in.Content) > maxUpload:
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the content is %s; upload_file takes at most %s", byteSize(int64(len(in.Content))), byteSize(maxUpload))
	}
	mt := strings.TrimSpace(in.MimeType)
	if mt == "" {
		mt = "text/plain"
	}
	if !isText(mt) {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "mime_type %q is not a text type; upload_file uploads text, e.g. text/plain, text/markdown, text/csv or application/json", mt)
	}
	meta := &file{Name: name, MimeType: mt}
	if folder := strings.TrimSpace(in.FolderID); folder != "" {
		meta.Parents = []string{folder}
	}
	f, err := d.o.driveAPI().create(ctx, meta, []byte(in.Content), "id,name,webViewLink")
	if err != nil {
		return "", apiError(err, "upload "+name+" to Google Drive")
	}
	where := "the top of My Drive"
	if len(meta.Parents) > 0 {
		where = "folder " + meta.Parents[0]
	}
	return fmt.Sprintf("Uploaded %s (%s) to %s: id %s, link %s", native.OneLine(f.Name), byteSize(int64(len(in.Content))), where, f.ID, f.WebViewLink), nil
}
