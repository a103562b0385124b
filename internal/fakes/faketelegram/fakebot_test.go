package faketelegram

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

const token = "42:fake-token"

type answer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

func post(t *testing.T, base, tok, method string, form url.Values) (int, answer) {
	t.Helper()
	resp, err := http.PostForm(base+"/bot"+tok+"/"+method, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, a
}

func TestWrongTokenIsUnauthorized(t *testing.T) {
	t.Parallel()
	s := New(t, token)
	if status, a := post(t, s.URL, "42:other", "getMe", nil); status != 401 || a.OK || a.ErrorCode != 401 || a.Description != "Unauthorized" {
		t.Errorf("%d %+v", status, a)
	}
	if status, a := post(t, s.URL, token, "getMe", nil); status != 200 || !a.OK || !strings.Contains(string(a.Result), BotUsername) {
		t.Errorf("%d %+v", status, a)
	}
}

func TestGetUpdatesLongPolls(t *testing.T) {
	t.Parallel()
	s := New(t, token)
	polled := make(chan answer, 1)
	start := time.Now()
	go func() {
		resp, err := http.PostForm(s.URL+"/bot"+token+"/getUpdates", url.Values{"timeout": {"5"}})
		var a answer
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&a)
			resp.Body.Close()
		}
		polled <- a
	}()
	// The update comes while the poll waits in the server, not before.
	s.Wait(t, 5*time.Second, "the poll to wait for an update", func() bool { return s.Polling() == 1 })
	s.SendText(1, 2, "hi")
	a := <-polled
	var ups []struct {
		UpdateID int `json:"update_id"`
		Message  struct {
			Text string `json:"text"`
		} `json:"message"`
	}
	json.Unmarshal(a.Result, &ups)
	if took := time.Since(start); len(ups) != 1 || ups[0].Message.Text != "hi" || took > 2*time.Second {
		t.Fatalf("after %s: %s", took, a.Result)
	}
	// Unconfirmed, it comes again; an offset past it confirms it.
	if _, a := post(t, s.URL, token, "getUpdates", nil); !strings.Contains(string(a.Result), `"hi"`) {
		t.Errorf("unconfirmed update not repeated: %s", a.Result)
	}
	post(t, s.URL, token, "getUpdates", url.Values{"offset": {strconv.Itoa(ups[0].UpdateID + 1)}})
	if s.Pending() != 0 {
		t.Error("the offset did not confirm the update")
	}
	if n := s.Polling(); n != 0 {
		t.Errorf("%d polls still counted as waiting after they were answered", n)
	}
}

func TestSecondPollerEndsTheFirstWith409(t *testing.T) {
	t.Parallel()
	s := New(t, token)
	first := make(chan int, 1)
	go func() {
		status, _ := post(t, s.URL, token, "getUpdates", url.Values{"timeout": {"5"}})
		first <- status
	}()
	s.Wait(t, 5*time.Second, "the first poll to wait in the server", func() bool { return s.Polling() == 1 })
	post(t, s.URL, token, "getUpdates", nil)
	if status := <-first; status != http.StatusConflict {
		t.Errorf("first poll ended with %d", status)
	}
}

func TestFailNextAndTelegramsChecks(t *testing.T) {
	t.Parallel()
	s := New(t, token)
	s.FailNext("sendMessage", 1, 429)
	if status, a := post(t, s.URL, token, "sendMessage", url.Values{"chat_id": {"1"}, "text": {"x"}}); status != 429 || a.Parameters.RetryAfter != 1 {
		t.Errorf("%d %+v", status, a)
	}
	for _, tc := range []struct{ text, markup, want string }{
		{"<b>open", "", "Can't find end tag"},
		{"a < b", "", "Unclosed start tag"},
		{"<script>x</script>", "", "Unsupported start tag"},
		{"<b>x</i>", "", "Unmatched end tag"},
		{strings.Repeat("&lt;", 4097), "", "message is too long"},
		{"<b></b>", "", "message text is empty"},
		{"x", `{"inline_keyboard":[[{"text":"B","callback_data":"` + strings.Repeat("d", 65) + `"}]]}`, "BUTTON_DATA_INVALID"},
	} {
		form := url.Values{"chat_id": {"1"}, "text": {tc.text}, "parse_mode": {"HTML"}, "reply_markup": {tc.markup}}
		if status, a := post(t, s.URL, token, "sendMessage", form); status != 400 || !strings.Contains(a.Description, tc.want) {
			t.Errorf("%.20q: %d %q, want %q", tc.text, status, a.Description, tc.want)
		}
	}
	if len(s.Sent()) != 0 {
		t.Errorf("refused messages were recorded: %+v", s.Sent())
	}
	if _, a := post(t, s.URL, token, "sendMessage", url.Values{"chat_id": {"1"}, "text": {"<b>4096</b> " + strings.Repeat("&amp;", 4091)}, "parse_mode": {"HTML"}}); !a.OK {
		t.Errorf("4096 visible characters refused: %s", a.Description)
	}
}
