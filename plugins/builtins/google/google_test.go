package google

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// roundTripFunc answers requests without a network.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// answer is a response of status with body, for roundTripFunc.
func answer(status int, body string) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body))}
}

// TestDefaultEndpointsAreGoogles_P6: without an Endpoint each API is
// asked at the URL Google's own client used (Gmail on its own host, Drive's
// uploads below upload/), with ids escaped as that client escaped them.
func TestDefaultEndpointsAreGoogles_P6(t *testing.T) {
	var mu sync.Mutex
	var got []string
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.String())
		mu.Unlock()
		return answer(http.StatusNotFound, `{"error":{"code":404,"message":"Not Found"}}`), nil
	})}
	o := Options{HTTPClient: client}
	ctx := context.Background()
	for _, tc := range []struct {
		call func() error
		want string
	}{
		{func() error {
			_, err := o.calendarAPI().getEvent(ctx, "family@group.calendar.google.com", "e1")
			return err
		},
			"GET https://www.googleapis.com/calendar/v3/calendars/family%40group.calendar.google.com/events/e1?alt=json&prettyPrint=false"},
		{func() error { _, err := o.gmailAPI().address(ctx); return err },
			"GET https://gmail.googleapis.com/gmail/v1/users/me/profile?alt=json&prettyPrint=false"},
		{func() error { _, err := o.driveAPI().download(ctx, "f 1"); return err },
			"GET https://www.googleapis.com/drive/v3/files/f%201?alt=media&prettyPrint=false&supportsAllDrives=true"},
		{func() error {
			_, err := o.driveAPI().create(ctx, &file{Name: "a.txt", MimeType: "text/plain"}, []byte("x"), "id")
			return err
		}, "POST https://www.googleapis.com/upload/drive/v3/files?alt=json&fields=id&prettyPrint=false&supportsAllDrives=true&uploadType=multipart"},
	} {
		got = nil
		err := tc.call()
		var ge *APIError
		if !errors.As(err, &ge) || ge.Status != http.StatusNotFound {
			t.Errorf("%s: error %v, want Google's 404", tc.want, err)
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("requests %q, want %q", got, tc.want)
		}
	}
}

// TestAPIErrorReadsGoogleBody_P6: a failure keeps its status and Google's
// words, in whichever shape they come, and only the status when there are
// none.
func TestAPIErrorReadsGoogleBody_P6(t *testing.T) {
	for _, tc := range []struct {
		name, body      string
		status          int
		message, reason string
	}{
		{"object", `{"error":{"code":403,"message":"Insufficient Permission","errors":[{"domain":"global","reason":"insufficientPermissions","message":"Insufficient Permission"}]}}`,
			http.StatusForbidden, "Insufficient Permission", "insufficientPermissions"},
		{"array", `[{"error":{"code":429,"message":"Quota exceeded","errors":[{"reason":"rateLimitExceeded"}]}}]`,
			http.StatusTooManyRequests, "Quota exceeded", "rateLimitExceeded"},
		{"html", `<html><body>502 Bad Gateway</body></html>`, http.StatusBadGateway, "", ""},
		{"empty", ``, http.StatusUnauthorized, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readAPIError(answer(tc.status, tc.body))
			var ge *APIError
			if !errors.As(err, &ge) {
				t.Fatalf("%v is no *APIError", err)
			}
			if ge.Status != tc.status || ge.Message != tc.message || ge.Reason != tc.reason {
				t.Errorf("got %+v, want status %d, message %q, reason %q", *ge, tc.status, tc.message, tc.reason)
			}
			if !strings.Contains(err.Error(), strconv.Itoa(tc.status)) {
				t.Errorf("error text %q does not name the status", err)
			}
		})
	}
}

// TestPathEscapeLikeGoogleClient_P6: ids become one path segment, every
// byte but letters, digits and -._~ percent-encoded.
func TestPathEscapeLikeGoogleClient_P6(t *testing.T) {
	for in, want := range map[string]string{
		"primary":                          "primary",
		"family@group.calendar.google.com": "family%40group.calendar.google.com",
		"a/b c+d?":                         "a%2Fb%20c%2Bd%3F",
		"ümlaut~_-.":                       "%C3%BCmlaut~_-.",
	} {
		if got := pathEscape(in); got != want {
			t.Errorf("pathEscape(%q) = %q, want %q", in, got, want)
		}
	}
}
