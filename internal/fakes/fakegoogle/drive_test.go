package fakegoogle

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// get sends an authorised GET to the fake and returns status and body.
func get(t *testing.T, s *Server, path string, q url.Values) (int, string) {
	t.Helper()
	status, b := restapi.Call(t, http.MethodGet, s.URL+path+"?"+q.Encode(), "t", "")
	return status, string(b)
}

// TestDriveQueryLanguage: the fake understands the part of Drive's query
// language the tools send, with Drive's escapes and precedence, and
// refuses what it cannot parse as Google does, with a 400.
func TestDriveQueryLanguage(t *testing.T) {
	s := New(t)
	folder := s.AddFile(DriveFile{Name: "Work", MimeType: DriveFolder})
	ids := map[string]string{
		"report": s.AddFile(DriveFile{Name: "Quarterly Report", MimeType: DriveDocument, Parents: []string{folder}, Content: []byte("revenue grew")}),
		"tom":    s.AddFile(DriveFile{Name: `Tom's \ notes`, MimeType: "text/plain", Content: []byte("call the plumber")}),
		"photo":  s.AddFile(DriveFile{Name: "beach.jpg", MimeType: "image/jpeg"}),
		"trash":  s.AddFile(DriveFile{Name: "old report", MimeType: "text/plain", Trashed: true}),
		"work":   folder,
	}
	for _, tc := range []struct {
		q    string
		want []string // keys of ids; nil with bad for a refusal
		bad  bool
	}{
		{q: "name contains 'report'", want: []string{"report", "trash"}},
		{q: "name contains 'port'", want: nil}, // a name term matches word starts
		{q: "fullText contains 'revenue'", want: []string{"report"}},
		{q: "fullText contains 'PLUMBER call'", want: []string{"tom"}},
		{q: `name contains 'Tom\'s \\'`, want: []string{"tom"}},
		{q: "mimeType contains 'image/'", want: []string{"photo"}},
		{q: "mimeType = '" + DriveFolder + "'", want: []string{"work"}},
		{q: "'" + folder + "' in parents", want: []string{"report"}},
		{q: "'root' in parents and trashed = false", want: []string{"tom", "photo", "work"}},
		{q: "name contains 'report' and trashed = false", want: []string{"report"}},
		{q: "name contains 'beach' or name contains 'tom' and trashed = true", want: []string{"photo"}},
		{q: "(name contains 'beach' or name contains 'tom') and not mimeType = 'image/jpeg'", want: []string{"tom"}},
		{q: "trashed != false", want: []string{"trash"}},
		{q: "name contains 'Tom's'", bad: true},
		{q: `name contains 'a\b'`, bad: true},
		{q: "name contains 'x", bad: true},
		{q: "(name contains 'x'", bad: true},
		{q: "owner = 'me'", bad: true},
		{q: "fullText = 'x'", bad: true},
	} {
		status, body := get(t, s, "/drive/v3/files", url.Values{"q": {tc.q}, "fields": {"files(id)"}})
		if tc.bad {
			if status != http.StatusBadRequest {
				t.Errorf("q %s: status %d, want 400", tc.q, status)
			}
			continue
		}
		if status != http.StatusOK {
			t.Errorf("q %s: status %d: %s", tc.q, status, body)
			continue
		}
		var res struct{ Files []struct{ ID string } }
		if err := json.Unmarshal([]byte(body), &res); err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, f := range res.Files {
			got = append(got, f.ID)
		}
		for _, k := range tc.want {
			want = append(want, ids[k])
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("q %s: got %v, want %v", tc.q, got, want)
		}
	}
}

// TestDriveRefusesWhatGoogleRefuses: a sorted fullText search (403), a
// field Drive does not have (400), a download of a Google Doc and an
// export of a plain file (403) are refused, as Google refuses them.
func TestDriveRefusesWhatGoogleRefuses(t *testing.T) {
	s := New(t)
	doc := s.AddFile(DriveFile{Name: "Doc", MimeType: DriveDocument, Content: []byte("text")})
	txt := s.AddFile(DriveFile{Name: "a.txt", MimeType: "text/plain", Content: []byte("text")})
	for _, tc := range []struct {
		name, path string
		q          url.Values
		status     int
		says       string
	}{
		{"sorted fullText", "/drive/v3/files", url.Values{"q": {"fullText contains 'x'"}, "orderBy": {"name"}}, 403, "Sorting is not supported"},
		{"unknown field", "/drive/v3/files", url.Values{"fields": {"files(id,colour)"}}, 400, "Invalid field selection colour"},
		{"unknown order", "/drive/v3/files", url.Values{"orderBy": {"colour"}}, 400, "orderBy"},
		{"download a Doc", "/drive/v3/files/" + doc, url.Values{"alt": {"media"}}, 403, "Use Export"},
		{"export a text file", "/drive/v3/files/" + txt + "/export", url.Values{"mimeType": {"text/plain"}}, 403, "Export only supports Docs Editors files"},
		{"export a Doc as CSV", "/drive/v3/files/" + doc + "/export", url.Values{"mimeType": {"text/csv"}}, 400, "conversion is not supported"},
		{"unknown file", "/drive/v3/files/nope", nil, 404, "File not found"},
	} {
		status, body := get(t, s, tc.path, tc.q)
		if status != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %s, want %d saying %q", tc.name, status, body, tc.status, tc.says)
		}
	}
	status, body := get(t, s, "/drive/v3/files/"+doc+"/export", url.Values{"mimeType": {"text/plain"}})
	if status != 200 || body != "\ufefftext" {
		t.Errorf("export of a Doc: %d %q, want the text after a byte order mark", status, body)
	}
	status, body = get(t, s, "/drive/v3/files/"+txt, url.Values{"fields": {"id,size,shortcutDetails(targetId)"}})
	if status != 200 || body != `{"id":"`+txt+`","size":"4"}`+"\n" {
		t.Errorf("fields mask: %d %s", status, body)
	}
}
