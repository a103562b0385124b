package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakegoogle"
	"github.com/jarvisbot/jarvisbot/internal/retry"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// driveZone is the owner's time zone in these tests: an hour east of UTC, so
// a time shown in UTC is caught.
var driveZone = time.FixedZone("CET", 60*60)

// driveFixture runs the Drive tools against a fake Google server through
// a signed-in client whose transport is next (a retry.Transport when nil).
type driveFixture struct {
	srv   *fakegoogle.Server
	tools map[string]native.Tool
}

func newDrive(t *testing.T, next http.RoundTripper, opts ...fakegoogle.Option) *driveFixture {
	t.Helper()
	srv := fakegoogle.New(t, opts...)
	tools := ToolMap(DriveTools(Options{HTTPClient: SignedIn(next), Endpoint: srv.URL, Location: driveZone}))
	return &driveFixture{srv: srv, tools: tools}
}

func (f *driveFixture) run(t *testing.T, tool string, args any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	tl, ok := f.tools[tool]
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	return tl.Run(context.Background(), raw)
}

func (f *driveFixture) must(t *testing.T, tool string, args any) string {
	t.Helper()
	out, err := f.run(t, tool, args)
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	return out
}

var modified = time.Date(2026, 11, 30, 8, 15, 0, 0, time.UTC) // 09:15 for the owner

// TestDriveToolsNamesTiersSchemasP6: reading is safe, uploading is
// monitored, and every schema is JSON the model can fill (P6, C2).
func TestDriveToolsNamesTiersSchemasP6(t *testing.T) {
	want := map[string]catalog.Tier{
		"search_files": catalog.TierSafe,
		"read_file":    catalog.TierSafe,
		"list_folder":  catalog.TierSafe,
		"upload_file":  catalog.TierMonitor,
	}
	tools := DriveTools(Options{})
	checkTools(t, tools, want)
	for _, tl := range tools {
		if id := tl.Capability(Drive, true).ID; id != "plugin:google-drive/"+tl.Name {
			t.Errorf("capability id %s", id)
		}
	}
}

// TestSearchFilesFindsByWordsAndTypeP6: search finds files by a word in
// the name or the text, leaves the trash out, filters by kind, and shows
// each file on a numbered line with kind, the change in the owner's zone,
// size and id.
func TestSearchFilesFindsByWordsAndTypeP6(t *testing.T) {
	f := newDrive(t, nil)
	sheet := f.srv.AddFile(fakegoogle.DriveFile{Name: "Budget 2027", MimeType: fakegoogle.DriveSpreadsheet, Content: []byte("item,cost\nrent,900\n"), Modified: modified})
	notes := f.srv.AddFile(fakegoogle.DriveFile{Name: "notes.txt", MimeType: "text/plain", Content: []byte("the budget meeting moved to friday"), Modified: modified.Add(-time.Hour)})
	f.srv.AddFile(fakegoogle.DriveFile{Name: "Old budget", MimeType: "text/plain", Content: []byte("x"), Trashed: true})
	f.srv.AddFile(fakegoogle.DriveFile{Name: "Holiday photos", MimeType: fakegoogle.DriveFolder})

	out := f.must(t, "search_files", map[string]any{"query": "budget"})
	for _, want := range []string{
		"1. Budget 2027 — Google Sheet, modified Mon 30 Nov 2026 09:15, id " + sheet,
		"2. notes.txt — text file, modified Mon 30 Nov 2026 08:15, 34 bytes, id " + notes,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("search for budget lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Old budget") || strings.Contains(out, "Holiday") {
		t.Errorf("search shows a trashed or unrelated file:\n%s", out)
	}

	out = f.must(t, "search_files", map[string]any{"query": "budget", "type": "spreadsheet"})
	if !strings.Contains(out, sheet) || strings.Contains(out, notes) {
		t.Errorf("type spreadsheet:\n%s", out)
	}
	out = f.must(t, "search_files", map[string]any{"type": "folder"})
	if !strings.Contains(out, "1. Holiday photos — folder") || strings.Contains(out, "2.") {
		t.Errorf("all folders:\n%s", out)
	}
	out = f.must(t, "search_files", map[string]any{"query": "invoice"})
	if !strings.HasPrefix(out, "No files matching") {
		t.Errorf("no match: %q", out)
	}
	if _, err := f.run(t, "search_files", map[string]any{"type": "movie"}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("unknown type: %v, want EINVALID", err)
	}
}

// TestSearchFilesEscapesQuotesP6: words with a quote or a backslash are
// escaped as Drive's query language needs, so the search runs and finds
// the file instead of failing on a malformed query.
func TestSearchFilesEscapesQuotesP6(t *testing.T) {
	f := newDrive(t, nil)
	id := f.srv.AddFile(fakegoogle.DriveFile{Name: `Tom's plan \ v2`, MimeType: "text/plain", Content: []byte("plan")})
	for _, words := range []string{"Tom's", `plan \ v2`, `Tom's plan \`} {
		out := f.must(t, "search_files", map[string]any{"query": words})
		if !strings.Contains(out, "id "+id) {
			t.Errorf("search %q did not find the file:\n%s", words, out)
		}
	}
}

// TestSearchFilesPagesP6: limit bounds a page, the answer gives the token
// of the next one, and the pages together hold every file once.
func TestSearchFilesPagesP6(t *testing.T) {
	f := newDrive(t, nil)
	var ids []string
	for i := range 5 {
		ids = append(ids, f.srv.AddFile(fakegoogle.DriveFile{Name: fmt.Sprintf("report %d", i), MimeType: "text/plain", Content: []byte("r"), Modified: modified.Add(-time.Duration(i) * time.Hour)}))
	}
	tokenRE := regexp.MustCompile(`page_token "([^"]+)"`)
	var seen []string
	token := ""
	for range 4 {
		out := f.must(t, "search_files", map[string]any{"query": "report", "limit": 2, "page_token": token})
		if n := strings.Count(out, "\n"); n > 3 {
			t.Errorf("a page of 2 has %d lines:\n%s", n, out)
		}
		for _, id := range ids {
			if strings.Contains(out, "id "+id) {
				seen = append(seen, id)
			}
		}
		m := tokenRE.FindStringSubmatch(out)
		if m == nil {
			break
		}
		token = m[1]
	}
	slices.Sort(seen)
	if !slices.Equal(seen, ids) {
		t.Errorf("pages held %v, want each of %v once", seen, ids)
	}
}

// TestReadFileGivesTextP6: Google's own kinds are exported as text (the
// Doc's byte order mark dropped), text files are downloaded as they are,
// and a PDF, an image or a folder is said plainly instead of failing.
func TestReadFileGivesTextP6(t *testing.T) {
	f := newDrive(t, nil)
	for _, tc := range []struct {
		name     string
		file     fakegoogle.DriveFile
		want     []string
		dontWant []string
	}{
		{"google doc", fakegoogle.DriveFile{Name: "Trip plan", MimeType: fakegoogle.DriveDocument, Content: []byte("Day 1: Lisbon\nDay 2: Porto")},
			[]string{"Trip plan (Google Doc, id ", "):\n\nDay 1: Lisbon\nDay 2: Porto"}, []string{"\ufeff"}},
		{"google sheet", fakegoogle.DriveFile{Name: "Budget", MimeType: fakegoogle.DriveSpreadsheet, Content: []byte("item,cost\nrent,900")},
			[]string{"Budget (Google Sheet, its first sheet as CSV", "item,cost\nrent,900"}, nil},
		{"google slides", fakegoogle.DriveFile{Name: "Pitch", MimeType: fakegoogle.DrivePresentation, Content: []byte("Slide one")},
			[]string{"Pitch (Google Slides", "Slide one"}, nil},
		{"markdown", fakegoogle.DriveFile{Name: "README.md", MimeType: "text/markdown", Content: []byte("# Title\nbody")},
			[]string{"README.md (Markdown file", "# Title\nbody"}, nil},
		{"json", fakegoogle.DriveFile{Name: "cfg.json", MimeType: "application/json", Content: []byte(`{"a":1}`)},
			[]string{`{"a":1}`}, nil},
		{"pdf", fakegoogle.DriveFile{Name: "Lease.pdf", MimeType: "application/pdf", Content: []byte("%PDF-1.7 binary")},
			[]string{"Lease.pdf (", ") is not text (PDF, 15 bytes); its contents cannot be read here", "https://drive.google.com/file/d/"}, []string{"%PDF"}},
		{"image", fakegoogle.DriveFile{Name: "cat.png", MimeType: "image/png", Content: []byte{0x89, 'P', 'N', 'G'}},
			[]string{"is not text (image (png)", "cannot be read"}, []string{"PNG"}},
		{"folder", fakegoogle.DriveFile{Name: "Taxes", MimeType: fakegoogle.DriveFolder},
			[]string{"is a folder; list it with list_folder"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := f.srv.AddFile(tc.file)
			out := f.must(t, "read_file", map[string]any{"file_id": id})
			for _, w := range append(tc.want, id) {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(out, w) {
					t.Errorf("has %q:\n%s", w, out)
				}
			}
		})
	}
	t.Run("shortcut", func(t *testing.T) {
		doc := f.srv.AddFile(fakegoogle.DriveFile{Name: "Minutes", MimeType: fakegoogle.DriveDocument, Content: []byte("We agreed.")})
		link := f.srv.AddFile(fakegoogle.DriveFile{Name: "Minutes", MimeType: fakegoogle.DriveShortcut, Target: doc})
		out := f.must(t, "read_file", map[string]any{"file_id": link})
		if !strings.Contains(out, "Minutes (Google Doc, id "+doc+"):\n\nWe agreed.") {
			t.Errorf("reading a shortcut does not read its target:\n%s", out)
		}
	})
	if _, err := f.run(t, "read_file", map[string]any{"file_id": "no-such-file"}); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("unknown file: %v, want ENOTFOUND", err)
	}
	if _, err := f.run(t, "read_file", map[string]any{}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("no file_id: %v, want EINVALID", err)
	}
}

// TestReadFileBoundsLongTextP6: a text far longer than an answer is cut
// to fit one, says where to read on, and offset reads on from there; a
// file over the read cap says only its start was fetched.
func TestReadFileBoundsLongTextP6(t *testing.T) {
	f := newDrive(t, nil)
	var b strings.Builder
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, "line %06d äö\n", i)
	}
	id := f.srv.AddFile(fakegoogle.DriveFile{Name: "log.txt", MimeType: "text/plain", Content: []byte(b.String())})
	out := f.must(t, "read_file", map[string]any{"file_id": id})
	if len(out) > native.MaxResult {
		t.Errorf("answer is %d bytes, over %d", len(out), native.MaxResult)
	}
	if !strings.Contains(out, "Only the first 1.0 MiB of the file were fetched") {
		t.Errorf("does not say the file was cut at the read cap:\n%s", out[len(out)-300:])
	}
	m := regexp.MustCompile(`call read_file with offset (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no offset to read on:\n%s", out[len(out)-300:])
	}
	body := strings.SplitN(out, "\n\n", 2)[1]
	lastShown := strings.Split(body[:strings.LastIndex(body, "\n[… ")], "\n")
	if out := f.must(t, "read_file", map[string]any{"file_id": id, "offset": 2 << 20}); !strings.Contains(out, "fetches only the first 1.0 MiB") {
		t.Errorf("an offset beyond what is fetched: %s", out)
	}
	long := f.srv.AddFile(fakegoogle.DriveFile{Name: strings.Repeat("very long name ", 2000), MimeType: "text/plain", Content: []byte("short text")})
	if out := f.must(t, "read_file", map[string]any{"file_id": long}); !strings.Contains(out, "short text") || len(out) > 2000 {
		t.Errorf("a file with a huge name: %d bytes, text shown: %v", len(out), strings.Contains(out, "short text"))
	}
	next := f.must(t, "read_file", map[string]any{"file_id": id, "offset": json.Number(m[1])})
	nextBody := strings.SplitN(next, "\n\n", 2)[1]
	// The last line shown, maybe cut, and the start of the next answer
	// make one line of the file.
	joined := lastShown[len(lastShown)-1] + strings.SplitN(nextBody, "\n", 2)[0]
	if !regexp.MustCompile(`^line \d{6} äö$`).MatchString(joined) {
		t.Errorf("reading on from offset %s does not continue the text: %q", m[1], joined)
	}
}

// TestListFolderShowsFoldersFirstP6: a folder's files are listed folders
// first and then by name; without an id the top of My Drive; a file that
// is no folder, or no file, is said as such.
func TestListFolderShowsFoldersFirstP6(t *testing.T) {
	f := newDrive(t, nil)
	top := f.srv.AddFile(fakegoogle.DriveFile{Name: "Projects", MimeType: fakegoogle.DriveFolder, Modified: modified})
	f.srv.AddFile(fakegoogle.DriveFile{Name: "zeta.txt", MimeType: "text/plain", Parents: []string{top}, Content: []byte("z"), Modified: modified})
	f.srv.AddFile(fakegoogle.DriveFile{Name: "alpha.txt", MimeType: "text/plain", Parents: []string{top}, Content: []byte("a"), Modified: modified})
	sub := f.srv.AddFile(fakegoogle.DriveFile{Name: "Website", MimeType: fakegoogle.DriveFolder, Parents: []string{top}, Modified: modified})
	f.srv.AddFile(fakegoogle.DriveFile{Name: "gone.txt", MimeType: "text/plain", Parents: []string{top}, Trashed: true})

	out := f.must(t, "list_folder", map[string]any{"folder_id": top})
	want := "Folder Projects (id " + top + "):\n" +
		"1. Website — folder, modified Mon 30 Nov 2026 09:15, id " + sub + "\n" +
		"2. alpha.txt — text file, modified Mon 30 Nov 2026 09:15, 1 bytes, id "
	if !strings.HasPrefix(out, want) || !strings.Contains(out, "3. zeta.txt") || strings.Contains(out, "gone") {
		t.Errorf("listing:\n%s\nwant it to begin\n%s", out, want)
	}

	out = f.must(t, "list_folder", map[string]any{})
	if !strings.HasPrefix(out, "Folder My Drive") || !strings.Contains(out, "1. Projects — folder") || strings.Contains(out, "alpha") {
		t.Errorf("root listing:\n%s", out)
	}

	out = f.must(t, "list_folder", map[string]any{"folder_id": top, "limit": 2})
	m := regexp.MustCompile(`page_token "([^"]+)"`).FindStringSubmatch(out)
	if m == nil || strings.Contains(out, "zeta") {
		t.Fatalf("first page of 2:\n%s", out)
	}
	out = f.must(t, "list_folder", map[string]any{"folder_id": top, "limit": 2, "page_token": m[1]})
	if !strings.Contains(out, "1. zeta.txt") || strings.Contains(out, "page_token") {
		t.Errorf("second page:\n%s", out)
	}

	link := f.srv.AddFile(fakegoogle.DriveFile{Name: "Projects link", MimeType: fakegoogle.DriveShortcut, Target: top})
	out = f.must(t, "list_folder", map[string]any{})
	if !strings.Contains(out, "Projects link — shortcut to folder, ") {
		t.Errorf("root listing does not say what the shortcut points to:\n%s", out)
	}
	if out := f.must(t, "list_folder", map[string]any{"folder_id": link}); !strings.HasPrefix(out, "Folder Projects (id "+top+")") {
		t.Errorf("listing a shortcut to a folder:\n%s", out)
	}

	file := f.srv.AddFile(fakegoogle.DriveFile{Name: "a.txt", MimeType: "text/plain"})
	if _, err := f.run(t, "list_folder", map[string]any{"folder_id": file}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "read_file") {
		t.Errorf("a file as folder: %v, want EINVALID pointing to read_file", err)
	}
	if _, err := f.run(t, "list_folder", map[string]any{"folder_id": "nope"}); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("unknown folder: %v, want ENOTFOUND", err)
	}
}

// TestUploadFileReachesDriveP6: the upload goes to Drive's upload
// endpoint with the name, type, folder and content intact, and the answer
// gives the new id and link.
func TestUploadFileReachesDriveP6(t *testing.T) {
	f := newDrive(t, nil)
	folder := f.srv.AddFile(fakegoogle.DriveFile{Name: "Notes", MimeType: fakegoogle.DriveFolder})
	content := "Shopping:\n- milk\n- Käse 🧀\n"
	out := f.must(t, "upload_file", map[string]any{"name": "list.md", "content": content, "mime_type": "text/markdown", "folder_id": folder})
	m := regexp.MustCompile(`id (\S+), link (https://\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no id and link in %q", out)
	}
	got, ok := f.srv.File(m[1])
	if !ok {
		t.Fatalf("the fake has no file %s", m[1])
	}
	if got.Name != "list.md" || got.MimeType != "text/markdown" || string(got.Content) != content || !slices.Equal(got.Parents, []string{folder}) {
		t.Errorf("uploaded %+v, want list.md, text/markdown, in %s, with the content", got, folder)
	}
	if !slices.Contains(f.srv.Requests(), "POST /upload/drive/v3/files") {
		t.Errorf("requests %v, want the upload endpoint", f.srv.Requests())
	}

	out = f.must(t, "upload_file", map[string]any{"name": "plain.txt", "content": "hi"})
	id := regexp.MustCompile(`id (\S+),`).FindStringSubmatch(out)[1]
	if got, _ := f.srv.File(id); got.MimeType != "text/plain" || got.Parents[0] != fakegoogle.DriveRoot || !strings.Contains(out, "the top of My Drive") {
		t.Errorf("default upload %+v: %s", got, out)
	}
}

// TestUploadFileRefusesWhatIsNotSmallTextP6: content over the cap, or a
// type that is not text, is refused before anything is sent.
func TestUploadFileRefusesWhatIsNotSmallTextP6(t *testing.T) {
	f := newDrive(t, nil)
	for _, args := range []map[string]any{
		{"name": "big.txt", "content": strings.Repeat("x", 5<<20+1)},
		{"name": "a.png", "content": "x", "mime_type": "image/png"},
		{"name": "", "content": "x"},
		{"name": "empty.txt", "content": ""},
	} {
		if _, err := f.run(t, "upload_file", args); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("upload %v: %v, want EINVALID", args["name"], err)
		}
	}
	if reqs := f.srv.Requests(); len(reqs) != 0 {
		t.Errorf("refused uploads sent %v", reqs)
	}
	if _, err := f.run(t, "upload_file", map[string]any{"name": "ok.txt", "content": strings.Repeat("x", 5<<20)}); err != nil {
		t.Errorf("an upload of exactly the cap: %v", err)
	}
}

// TestDriveRetriesBusyAnswerP6: a 503 to a read is retried by the
// transport, on its clock, and the tool answers as if nothing happened.
func TestDriveRetriesBusyAnswerP6(t *testing.T) {
	clk := clock.NewFake(modified)
	f := newDrive(t, &retry.Transport{Clock: clk, Policy: retry.Policy{Min: time.Second, Max: time.Second}})
	id := f.srv.AddFile(fakegoogle.DriveFile{Name: "a.txt", MimeType: "text/plain", Content: []byte("hello")})
	f.srv.Fail(http.MethodGet, "/drive/v3/files", http.StatusServiceUnavailable, 1)
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := f.run(t, "read_file", map[string]any{"file_id": id})
		done <- result{out, err}
	}()
	testwait.For(t, 10*time.Second, "the transport to wait before its retry", func() (bool, any) {
		return clk.Pending() == 1, "no wait yet"
	})
	clk.Advance(time.Second)
	r := <-done
	if r.err != nil || !strings.Contains(r.out, "hello") {
		t.Fatalf("after a 503: %q, %v", r.out, r.err)
	}

	// An upload turned away as rate limited is sent again, whole.
	f.srv.Fail(http.MethodPost, "/upload/drive/v3/files", http.StatusTooManyRequests, 1)
	out := f.must(t, "upload_file", map[string]any{"name": "again.txt", "content": "sent twice, kept once"})
	m := regexp.MustCompile(`id (\S+),`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("upload after a 429: %s", out)
	}
	if got, _ := f.srv.File(m[1]); string(got.Content) != "sent twice, kept once" {
		t.Errorf("the retried upload holds %q", got.Content)
	}
}

// TestDriveRefusedSignInKeepsCauseP6: when Google refuses the token the
// error keeps Google's answer (so the sign-in can be marked as needing
// attention, P4) and is not blamed on the model's arguments.
func TestDriveRefusedSignInKeepsCauseP6(t *testing.T) {
	f := newDrive(t, nil, fakegoogle.WithAuth(func(string) bool { return false }))
	for tool, args := range map[string]map[string]any{
		"search_files": {"query": "x"},
		"read_file":    {"file_id": "x"},
		"list_folder":  {},
		"upload_file":  {"name": "a.txt", "content": "x"},
	} {
		_, err := f.run(t, tool, args)
		var ge *APIError
		if !errors.As(err, &ge) || ge.Status != http.StatusUnauthorized {
			t.Errorf("%s: %v does not keep Google's 401", tool, err)
		}
		if code := jarvisbot.ErrorCode(err); code == jarvisbot.EINVALID || code == "" {
			t.Errorf("%s: code %q, want one that is not the model's fault", tool, code)
		}
	}
}
