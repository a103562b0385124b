package restapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Call sends one request to a fake, with the bearer token unless token is
// "", and returns the status and the body; a request that cannot be made or
// answered fails the test.
func Call(t testing.TB, method, url, token, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// CallJSON is Call for an API that answers JSON objects: the body decoded,
// nil when there is none; a body that is not JSON fails the test.
func CallJSON(t testing.TB, method, url, token, body string) (int, map[string]any) {
	t.Helper()
	status, b := Call(t, method, url, token, body)
	var v map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %s", method, url, b)
		}
	}
	return status, v
}
