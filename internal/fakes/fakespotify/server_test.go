package fakespotify

import (
	"net/http"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

func send(t *testing.T, method, url, token, body string) (int, map[string]any) {
	t.Helper()
	return restapi.CallJSON(t, method, url, token, body)
}

func errorBody(t *testing.T, out map[string]any) (status float64, message, reason string) {
	t.Helper()
	e, ok := out["error"].(map[string]any)
	if !ok {
		t.Fatalf("no Spotify error body in %v", out)
	}
	status, _ = e["status"].(float64)
	message, _ = e["message"].(string)
	reason, _ = e["reason"].(string)
	return status, message, reason
}

func TestTokensAreCheckedWithSpotifysErrorBody(t *testing.T) {
	s := New(t, WithAuth(Only("good")))
	for _, tok := range []string{"", "bad"} {
		code, out := send(t, "GET", s.URL+"me/player/devices", tok, "")
		if st, msg, _ := errorBody(t, out); code != 401 || st != 401 || msg == "" {
			t.Errorf("token %q: %d %v", tok, code, out)
		}
	}
	if code, _ := send(t, "GET", s.URL+"me/player/devices", "good", ""); code != 200 {
		t.Errorf("good token: %d", code)
	}
	if got := s.Requests(); len(got) != 1 || got[0] != "GET /v1/me/player/devices" {
		t.Errorf("requests %v; refused ones are not recorded", got)
	}
}

func TestCurrentlyPlayingLeavesTheDeviceOut(t *testing.T) {
	s := New(t)
	s.AddTrack(Track{ID: "a1", Name: "A", Artists: []string{"B"}, Album: "C", DurationMs: 1000})
	s.AddDevice(Device{ID: "d1", Name: "Phone", Type: "Smartphone", Volume: 50})
	if code, _ := send(t, "GET", s.URL+"me/player/currently-playing", "x", ""); code != http.StatusNoContent {
		t.Errorf("nothing active: %d, want 204", code)
	}
	s.SetPlayback(Playback{Device: "d1", Track: "spotify:track:a1", Playing: true})
	code, out := send(t, "GET", s.URL+"me/player/currently-playing", "x", "")
	if code != 200 || out["device"] != nil || out["is_playing"] != true {
		t.Errorf("currently-playing: %d %v", code, out)
	}
	code, out = send(t, "GET", s.URL+"me/player", "x", "")
	if code != 200 || out["device"] == nil || out["repeat_state"] != "off" {
		t.Errorf("player: %d %v", code, out)
	}
}

func TestPlayerCommandsAnswerLikeSpotify(t *testing.T) {
	s := New(t)
	s.AddDevice(Device{ID: "d1", Name: "Phone"}, Device{ID: "d2", Name: "Speaker", NoVolume: true})
	code, out := send(t, "PUT", s.URL+"me/player/pause", "x", "")
	if _, _, reason := errorBody(t, out); code != 404 || reason != "NO_ACTIVE_DEVICE" {
		t.Errorf("pause with no active device: %d %v", code, out)
	}
	code, out = send(t, "PUT", s.URL+"me/player", "x", `{"device_ids":["d1","d2"]}`)
	if st, _, _ := errorBody(t, out); code != 400 || st != 400 {
		t.Errorf("transfer to two devices: %d %v", code, out)
	}
	if code, _ = send(t, "PUT", s.URL+"me/player", "x", `{"device_ids":["d2"]}`); code != 204 || s.Player().Device != "d2" {
		t.Errorf("transfer: %d, active %q", code, s.Player().Device)
	}
	code, out = send(t, "PUT", s.URL+"me/player/volume?volume_percent=10", "x", "")
	if _, _, reason := errorBody(t, out); code != 403 || reason != "VOLUME_CONTROL_DISALLOW" {
		t.Errorf("volume on a device without it: %d %v", code, out)
	}
	code, out = send(t, "GET", s.URL+"search?q=a&type=track&limit=11", "x", "")
	if _, msg, _ := errorBody(t, out); code != 400 || msg != "Invalid limit" {
		t.Errorf("search past 10: %d %v", code, out)
	}

	free := New(t, WithoutPremium())
	free.AddDevice(Device{ID: "d1", Name: "Phone", Active: true})
	code, out = send(t, "POST", free.URL+"me/player/next", "x", "")
	if _, _, reason := errorBody(t, out); code != 403 || reason != "PREMIUM_REQUIRED" {
		t.Errorf("next without Premium: %d %v", code, out)
	}
}

func TestFailAnswersTheStatusThenServesAgain(t *testing.T) {
	s := New(t)
	s.FailReason("GET", "/v1/me/playlists", 429, "QUOTA_EXCEEDED", 1)
	req, _ := http.NewRequest("GET", s.URL+"me/playlists", nil)
	req.Header.Set("Authorization", "Bearer x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "0" {
		t.Errorf("fault: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	code, out := send(t, "GET", s.URL+"me/playlists", "x", "")
	if code != 200 || out["total"] != float64(0) {
		t.Errorf("after the fault: %d %v", code, out)
	}
}
