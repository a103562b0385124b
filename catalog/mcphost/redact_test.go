package mcphost

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	envSecret    = "tok-ENV-s3cr3t-4711"
	headerSecret = "tok-HDR-s3cr3t-0815"
)

func secretLookup(name string) (string, bool) {
	switch name {
	case "MY_TOKEN":
		return envSecret, true
	case "API_TOKEN":
		return headerSecret, true
	}
	return "", false
}

// noSecret fails the test when err's text holds a secret in any spelling.
func noSecret(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	msg := err.Error()
	for _, v := range []string{envSecret, headerSecret, "s3cr3t"} {
		if strings.Contains(msg, v) {
			t.Errorf("%s: the error quotes a secret jarvisbot handed the server: %s", what, msg)
		}
	}
	if !strings.Contains(msg, "[redacted") {
		t.Errorf("%s: the error does not show where a secret was left out: %s", what, msg)
	}
}

// TestErrorsRedactSecretsX3: an error that quotes what a server printed
// (its stderr at exit, a crash, its own error message) never holds a value
// jarvisbot resolved for it from ${NAME} (env, headers): Dial, Call and
// the session's end alike.
func TestErrorsRedactSecretsX3(t *testing.T) {
	opt := DialOptions{Lookup: secretLookup, InitTimeout: 5 * time.Second}

	s := stdioServer("leaky", "-print-env", "TOKEN", "-exit-at-start", "1")
	s.Env = map[string]string{"TOKEN": "${MY_TOKEN}"}
	_, err := Dial(context.Background(), s, opt)
	noSecret(t, "dial a server that prints its token and exits", err)
	if !strings.Contains(err.Error(), "TOKEN=[redacted ${MY_TOKEN}]") {
		t.Errorf("the redaction does not name the reference: %v", err)
	}

	s = stdioServer("leaky", "-print-env", "TOKEN")
	s.Env = map[string]string{"TOKEN": "Bearer ${MY_TOKEN}"}
	cn := dial(t, s, opt)
	_, err = cn.Call(context.Background(), "crash", json.RawMessage(`{}`), 0)
	noSecret(t, "a crash after printing the token", err)
	<-cn.Done()
	noSecret(t, "why the session ended", cn.Err())

	// An HTTP server that quotes the Authorization header in its error.
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "application/json")
		msg := strconv.Quote("token " + r.Header.Get("Authorization") + " is not valid here")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":%s}}`, req.ID, msg)
	}))
	defer hs.Close()
	_, err = Dial(context.Background(), Server{Name: "echoes", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer ${API_TOKEN}"}}, opt)
	noSecret(t, "an HTTP server quoting its header", err)
}

// TestRedactorSpellings: a secret is found as it is, and as a quoted
// (escaped) string shows it; the longest value is replaced first, and
// values too short to tell from ordinary words are left alone.
func TestRedactorSpellings(t *testing.T) {
	var r redactor
	r.add(`ab"c\d-long`, "${A}")
	r.add(`ab"c\d-longer`, "${B}")
	r.add("on", "${SHORT}")
	for in, want := range map[string]string{
		`x ab"c\d-long y`:                `x [redacted ${A}] y`,
		`x ab"c\d-longer y`:              `x [redacted ${B}] y`,
		strconv.Quote(`x ab"c\d-long y`): `"x [redacted ${A}] y"`,
		`{"m":"ab\"c\\d-longer"}`:        `{"m":"[redacted ${B}]"}`,
		"nothing to hide, on and on":     "nothing to hide, on and on",
	} {
		if got := r.text(in); got != want {
			t.Errorf("text(%s) = %s, want %s", in, got, want)
		}
	}
}
