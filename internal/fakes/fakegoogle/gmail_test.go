package fakegoogle

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// The fake refuses what Gmail refuses, and what it cannot answer truly,
// so a test against it does not pass on a wrong request.
func TestGmail_RefusesWhatGmailRefuses(t *testing.T) {
	s := New(t)
	id := s.AddMessage(Message{From: "ann@example.com", Subject: "Hi", Labels: []string{"INBOX"}})
	raw := func(text string) string {
		b, _ := json.Marshal(map[string]string{"raw": base64.URLEncoding.EncodeToString([]byte(text))})
		return string(b)
	}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"an unknown search operator", "GET", "/gmail/v1/users/me/messages?q=" + url.QueryEscape("filename:pdf"), "", http.StatusBadRequest},
		{"another user's mailbox", "GET", "/gmail/v1/users/someone@example.com/messages", "", http.StatusForbidden},
		{"a missing message", "GET", "/gmail/v1/users/me/messages/nope", "", http.StatusNotFound},
		{"an unknown label id", "POST", "/gmail/v1/users/me/messages/" + id + "/modify", `{"addLabelIds":["Label_99"]}`, http.StatusBadRequest},
		{"a mail to no one", "POST", "/gmail/v1/users/me/messages/send", raw("Subject: x\r\n\r\nbody"), http.StatusBadRequest},
		{"a raw field that is not base64url", "POST", "/gmail/v1/users/me/messages/send", `{"raw":"***"}`, http.StatusBadRequest},
		{"a known search", "GET", "/gmail/v1/users/me/messages?q=" + url.QueryEscape(`in:inbox -is:unread "hi"`), "", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if status, _ := restapi.Call(t, tc.method, s.URL+tc.path, "t", tc.body); status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
		})
	}
	if len(s.Sent()) != 0 || len(s.Labels(id)) != 1 {
		t.Errorf("a refused request changed the mailbox: sent %v, labels %v", s.Sent(), s.Labels(id))
	}
}
