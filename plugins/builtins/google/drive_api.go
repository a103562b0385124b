package google

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
)

// The Google Drive API v3 calls the Drive tools make, and the parts of its
// JSON they read and write. Fields are in the order of their JSON names,
// as in Google's own client, so a request's body is the same bytes. The
// tools search and read in the owner's drives and shared drives
// (supportsAllDrives), and ask for just the fields they show.

// file is a Drive file or folder, with the fields the tools ask for.
type file struct {
	ID              string           `json:"id,omitempty"`
	MimeType        string           `json:"mimeType,omitempty"`
	ModifiedTime    string           `json:"modifiedTime,omitempty"` // RFC 3339
	Name            string           `json:"name,omitempty"`
	Parents         []string         `json:"parents,omitempty"`
	ShortcutDetails *shortcutDetails `json:"shortcutDetails,omitempty"`
	Size            int64            `json:"size,omitempty,string"` // bytes; 0 for Google's own kinds
	WebViewLink     string           `json:"webViewLink,omitempty"`
}

// shortcutDetails is what a shortcut points to.
type shortcutDetails struct {
	TargetID       string `json:"targetId,omitempty"`
	TargetMimeType string `json:"targetMimeType,omitempty"`
}

// fileList is one page of files.list.
type fileList struct {
	Files         []*file `json:"files"`
	NextPageToken string  `json:"nextPageToken"`
}

// driveAPI is Google Drive for the owner; uploads go to a base of their
// own.
type driveAPI struct {
	api
	upload api
}

func (o Options) driveAPI() driveAPI {
	return driveAPI{api: o.api("drive/v3/", driveBase), upload: o.api("upload/drive/v3/", driveUploadBase)}
}

// fileQuery is what listFiles asks for: files matching Q (Drive's query
// language) in OrderBy's order ("" for Drive's), a page of PageSize.
type fileQuery struct {
	Q, OrderBy string
	PageSize   int
	PageToken  string // "" for the first page
}

// listFiles lists files with the fields fileFields names.
func (d driveAPI) listFiles(ctx context.Context, fq fileQuery) (*fileList, error) {
	q := url.Values{
		"q":                         {fq.Q},
		"pageSize":                  {strconv.Itoa(fq.PageSize)},
		"pageToken":                 {fq.PageToken},
		"supportsAllDrives":         {"true"},
		"includeItemsFromAllDrives": {"true"},
		"fields":                    {"nextPageToken,files(" + fileFields + ")"},
	}
	if fq.OrderBy != "" {
		q.Set("orderBy", fq.OrderBy)
	}
	return request[fileList](ctx, d.api, "GET", "files", q, nil)
}

// getFile reads a file's fields that fileFields names.
func (d driveAPI) getFile(ctx context.Context, id string) (*file, error) {
	q := url.Values{"supportsAllDrives": {"true"}, "fields": {fileFields}}
	return request[file](ctx, d.api, "GET", "files/"+pathEscape(id), q, nil)
}

// download fetches a file's content; the caller reads and closes the
// body.
func (d driveAPI) download(ctx context.Context, id string) (*http.Response, error) {
	q := url.Values{"alt": {"media"}, "supportsAllDrives": {"true"}}
	return d.send(ctx, "GET", "files/"+pathEscape(id), q, "", nil)
}

// export fetches a Google Doc, Sheet or Slides converted to mimeType; the
// caller reads and closes the body.
func (d driveAPI) export(ctx context.Context, id, mimeType string) (*http.Response, error) {
	q := url.Values{"alt": {"media"}, "mimeType": {mimeType}}
	return d.send(ctx, "GET", "files/"+pathEscape(id)+"/export", q, "", nil)
}

// create uploads a new file, meta and content in one multipart/related
// request (uploadType=multipart, for content small enough to send at
// once), and returns the fields fields names of the new file.
func (d driveAPI) create(ctx context.Context, meta *file, content []byte, fields string) (*file, error) {
	metaJSON, err := encodeJSON(meta)
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, part := range []struct {
		contentType string
		data        []byte
	}{{"application/json", metaJSON}, {meta.MimeType, content}} {
		// Writes to a bytes.Buffer do not fail.
		pw, _ := w.CreatePart(textproto.MIMEHeader{"Content-Type": {part.contentType}})
		_, _ = pw.Write(part.data)
	}
	_ = w.Close()
	q := url.Values{"uploadType": {"multipart"}, "supportsAllDrives": {"true"}, "fields": {fields}}
	var out file
	if err := d.upload.exchange(ctx, "POST", "files", q, "multipart/related; boundary="+w.Boundary(), body.Bytes(), &out); err != nil {
		return nil, err
	}
	return &out, nil
}
