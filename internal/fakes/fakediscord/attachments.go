package fakediscord

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"github.com/bwmarrin/discordgo"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// attachment is a file the fake serves: one a user sent, or one the bot
// uploaded.
type attachment struct {
	id, messageID, channelID string
	fileName, contentType    string
	sig                      string // the link's hm parameter: a link without it is refused
	data                     []byte
	size                     int // as announced, which ReplaceAttachment leaves
}

// attach keeps a's bytes for download and returns its JSON, as a
// MESSAGE_CREATE carries it.
func (s *Server) attach(messageID, channelID string, a Attachment) map[string]any {
	s.mu.Lock()
	at := &attachment{id: s.idLocked(), messageID: messageID, channelID: channelID, fileName: a.FileName,
		contentType: a.ContentType, sig: randomHex(), data: a.Data, size: len(a.Data)}
	s.attachments[at.id] = at
	j := s.attachmentJSONLocked(at)
	s.mu.Unlock()
	if a.Seconds > 0 {
		j["duration_secs"] = a.Seconds
		j["waveform"] = waveform(a.Seconds)
	}
	return j
}

func (s *Server) attachmentJSONLocked(a *attachment) map[string]any {
	u := s.attachmentURL(a)
	j := map[string]any{"id": a.id, "filename": a.fileName, "size": a.size, "url": u, "proxy_url": u}
	if a.contentType != "" {
		j["content_type"] = a.contentType
	}
	return j
}

// attachmentURL is a link like Discord's CDN gives: on the CDN's host
// (HTTPClient's transport brings it to the fake), the channel, the
// attachment and its name in the path, an expiry and a signature in the
// query. With OwnAddressLinks it is on the fake's own address instead.
func (s *Server) attachmentURL(a *attachment) string {
	q := url.Values{
		"ex": {strconv.FormatInt(time.Now().Add(24*time.Hour).Unix(), 16)},
		"is": {strconv.FormatInt(time.Now().Unix(), 16)},
		"hm": {a.sig},
	}
	base := strings.TrimSuffix(discordgo.EndpointCDN, "/")
	if s.OwnAddressLinks {
		base = s.http.URL
	}
	return base + "/attachments/" + a.channelID + "/" + a.id + "/" + url.PathEscape(a.fileName) + "?" + q.Encode()
}

// waveform is what Discord gives a voice message: base64 of one byte of
// loudness per tenth of a second, at most 256. The fake's voice is even.
func waveform(seconds float64) string {
	n := min(256, max(1, int(math.Ceil(seconds*10))))
	w := make([]byte, n)
	for i := range w {
		w[i] = 128
	}
	return base64.StdEncoding.EncodeToString(w)
}

func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// serveAttachment serves a file by its link; a link whose signature or
// name does not match is refused as Discord's CDN refuses an expired one.
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a, ok := s.attachments[r.PathValue("attachment")]
	var body []byte
	var ctype string
	if ok {
		ok = a.channelID == r.PathValue("channel") && a.fileName == r.PathValue("filename") && r.URL.Query().Get("hm") == a.sig
		body, ctype = a.data, a.contentType
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, "This content is no longer available.", http.StatusNotFound)
		return
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	// No Content-Length of its own: net/http sends one for a small body
	// and streams a larger one (over 2 KiB) without, so a client's
	// reading under a bound is exercised as well as its check of the length.
	_, _ = w.Write(body)
}

// multipartMessage reads a message create or edit sent as
// multipart/form-data: the JSON in the part payload_json, the files in
// parts named files[N]. It returns a Discord error code and text when
// Discord would refuse the body.
func multipartMessage(r *http.Request, boundary string, into *messageBody) ([]File, int, string) {
	var files []File
	var total int64
	gotPayload := false
	mr := multipart.NewReader(r.Body, boundary)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 50035, "Invalid Form Body: " + err.Error()
		}
		name := p.FormName()
		switch {
		case name == "payload_json":
			if err := decodeJSON(p, into); err != nil {
				return nil, 50109, "The request body contains invalid JSON."
			}
			gotPayload = true
		case strings.HasPrefix(name, "files[") && strings.HasSuffix(name, "]"):
			data, err := io.ReadAll(io.LimitReader(p, maxUploadBytes+1-total))
			if err != nil {
				return nil, 50035, "Invalid Form Body: " + err.Error()
			}
			total += int64(len(data))
			if total > maxUploadBytes {
				return nil, 40005, "Request entity too large"
			}
			ctype := p.Header.Get("Content-Type")
			if mt, _, err := mime.ParseMediaType(ctype); err != nil || mt == "" {
				return nil, 50035, fmt.Sprintf("Invalid Form Body: %s: content type %q", name, ctype)
			}
			if p.FileName() == "" {
				return nil, 50035, "Invalid Form Body: " + name + ": a file needs a filename"
			}
			files = append(files, File{Name: p.FileName(), ContentType: ctype, Data: data})
		default:
			return nil, 50035, fmt.Sprintf("Invalid Form Body: unexpected part %q", name)
		}
	}
	if !gotPayload && len(files) == 0 {
		return nil, 50006, "Cannot send an empty message"
	}
	return files, 0, ""
}
