package fakediscord

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// upload creates a message in channel 200 as multipart/form-data, the
// way Discord takes files, and returns the answer.
func upload(t *testing.T, s *Server, payload string, files ...File) (*http.Response, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="payload_json"`)
	h.Set("Content-Type", "application/json")
	p, _ := mw.CreatePart(h)
	p.Write([]byte(payload))
	for i, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="files[`+string(rune('0'+i))+`]"; filename="`+f.Name+`"`)
		h.Set("Content-Type", f.ContentType)
		p, _ := mw.CreatePart(h)
		p.Write(f.Data)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, discordgo.EndpointChannelMessages("200"), &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bot "+s.Token())
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestMultipartCreateRecordsAndServesFilesV1: a message created with a
// file is recorded with the file's name, type and bytes, and the file is
// served at the link in the answer, which HTTPClient reaches; the link
// without its signature is refused.
func TestMultipartCreateRecordsAndServesFilesV1(t *testing.T) {
	t.Parallel()
	s := New(t)
	ogg := []byte("OggS not really a recording")
	resp, body := upload(t, s, `{"content":"heard you","message_reference":{"message_id":"77"}}`,
		File{Name: "answer.ogg", ContentType: "audio/ogg", Data: ogg})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create: HTTP %d %s", resp.StatusCode, body)
	}
	sent := s.Sent()
	if len(sent) != 1 || sent[0].Content != "heard you" || sent[0].ReplyTo != "77" || len(sent[0].Files) != 1 {
		t.Fatalf("sent %+v, want one reply to 77 with one file", sent)
	}
	if f := sent[0].Files[0]; f.Name != "answer.ogg" || f.ContentType != "audio/ogg" || !bytes.Equal(f.Data, ogg) {
		t.Errorf("file = %+v", f)
	}

	var msg struct {
		Attachments []struct {
			URL         string `json:"url"`
			Size        int    `json:"size"`
			ContentType string `json:"content_type"`
		} `json:"attachments"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || len(msg.Attachments) != 1 {
		t.Fatalf("answer %s: %v, want one attachment", body, err)
	}
	a := msg.Attachments[0]
	if a.Size != len(ogg) || a.ContentType != "audio/ogg" {
		t.Errorf("attachment = %+v", a)
	}
	get := func(link string) (int, []byte) {
		resp, err := s.HTTPClient().Get(link)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if status, b := get(a.URL); status != http.StatusOK || !bytes.Equal(b, ogg) {
		t.Errorf("GET the attachment: HTTP %d, %d bytes; want the %d bytes uploaded", status, len(b), len(ogg))
	}
	unsigned, _, _ := strings.Cut(a.URL, "?")
	if status, _ := get(unsigned); status != http.StatusNotFound {
		t.Errorf("GET without the signature: HTTP %d, want 404", status)
	}
	if n := s.Requests(RouteAttachment); n != 2 {
		t.Errorf("%d downloads counted, want 2", n)
	}

	// Over the upload limit Discord answers 413; an empty message is refused.
	if resp, _ := upload(t, s, `{}`, File{Name: "big.ogg", ContentType: "audio/ogg", Data: make([]byte, maxUploadBytes+1)}); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an upload over the limit: HTTP %d, want 413", resp.StatusCode)
	}
	if resp, _ := upload(t, s, `{"content":""}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an empty message: HTTP %d, want 400", resp.StatusCode)
	}
	if n := len(s.Sent()); n != 1 {
		t.Errorf("%d messages recorded, want 1", n)
	}
}
