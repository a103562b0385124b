package spotify_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakespotify"
	"github.com/jarvisbot/jarvisbot/internal/retry"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/spotify"
)

// The catalog the tests play from; names made up for these tests.
var (
	harbour = fakespotify.Track{ID: "t1harbour", Name: "Harbour Lights", Artists: []string{"The Quiet Engines"}, Album: "Low Tide", Year: "2019", DurationMs: 214000}
	paper   = fakespotify.Track{ID: "t2paper", Name: "Paper Moons", Artists: []string{"The Quiet Engines"}, Album: "Low Tide", Year: "2019", DurationMs: 187000}
	copper  = fakespotify.Track{ID: "t3copper", Name: "Copper Sky", Artists: []string{"Mina Vale", "Otto Rask"}, Album: "Northbound", Year: "2021", DurationMs: 245000}

	morning = fakespotify.Playlist{ID: "p1morning", Name: "Sunday Morning", Owner: "Owner", Tracks: []string{"t1harbour", "t3copper"}, Mine: true}
	run     = fakespotify.Playlist{ID: "p2run", Name: "Sunday Run", Owner: "Owner", Tracks: []string{"t2paper"}, Mine: true}
	focus   = fakespotify.Playlist{ID: "p3focus", Name: "Focus: Deep Work", Owner: "Owner", Tracks: []string{"t3copper", "t2paper"}, Mine: true}
	public  = fakespotify.Playlist{ID: "p4public", Name: "Quiet Evenings", Owner: "Someone Else", Tracks: []string{"t1harbour"}}

	kitchen = fakespotify.Device{ID: "dkitchen", Name: "Kitchen speaker", Type: "Speaker", Volume: 40}
	laptop  = fakespotify.Device{ID: "dlaptop", Name: "Work laptop", Type: "Computer", Volume: 70}
)

const token = "good-token"

// newFake starts a fake holding the catalog, and the tools pointed at it
// with an HTTP client that signs requests like the sign-in does.
func newFake(t *testing.T, opts ...fakespotify.Option) (*fakespotify.Server, map[string]native.Tool) {
	t.Helper()
	fs := fakespotify.New(t, opts...)
	fs.AddTrack(harbour, paper, copper)
	fs.AddPlaylist(morning, run, focus, public)
	return fs, toolsFor(fs, token)
}

func toolsFor(fs *fakespotify.Server, tok string) map[string]native.Tool {
	hc := &http.Client{Transport: &oauth2.Transport{
		Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok}),
		Base:   &retry.Transport{},
	}}
	m := map[string]native.Tool{}
	for _, tl := range spotify.Tools(spotify.Options{HTTPClient: hc, Endpoint: fs.URL}) {
		m[tl.Name] = tl
	}
	return m
}

func call(t *testing.T, tools map[string]native.Tool, name, args string) (string, error) {
	t.Helper()
	tl, ok := tools[name]
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return tl.Run(ctx, json.RawMessage(args))
}

func mustCall(t *testing.T, tools map[string]native.Tool, name, args string) string {
	t.Helper()
	out, err := call(t, tools, name, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return out
}

func wantAll(t *testing.T, out string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(out, p) {
			t.Errorf("result lacks %q:\n%s", p, out)
		}
	}
}

func wantCode(t *testing.T, err error, code jarvisbot.Code, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s", code)
	}
	if got := jarvisbot.ErrorCode(err); got != code {
		t.Errorf("code %s, want %s: %v", got, code, err)
	}
	wantAll(t, err.Error(), parts...)
}

func TestToolsHaveTiersAndSchemas_P6(t *testing.T) {
	want := map[string]catalog.Tier{
		"now_playing": catalog.TierSafe, "search": catalog.TierSafe, "list_devices": catalog.TierSafe,
		"play": catalog.TierMonitor, "pause": catalog.TierMonitor, "next": catalog.TierMonitor,
		"previous": catalog.TierMonitor, "queue": catalog.TierMonitor, "set_volume": catalog.TierMonitor,
		"play_playlist": catalog.TierMonitor,
	}
	tools := spotify.Tools(spotify.Options{})
	if len(tools) != len(want) {
		t.Errorf("%d tools, want %d", len(tools), len(want))
	}
	for _, tl := range tools {
		tier, ok := want[tl.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tl.Name)
			continue
		}
		if tl.Tier != tier {
			t.Errorf("%s: tier %s, want %s", tl.Name, tl.Tier, tier)
		}
		var schema map[string]any
		if err := json.Unmarshal([]byte(tl.Schema), &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema is not a JSON object schema: %v", tl.Name, err)
		}
		if tl.Description == "" {
			t.Errorf("%s has no description", tl.Name)
		}
		if id := tl.Capability(spotify.Plugin, true).ID; id != "plugin:spotify/"+tl.Name {
			t.Errorf("capability id %s", id)
		}
	}
}

func TestNowPlayingShowsTrackDeviceProgressShuffleRepeat_P6(t *testing.T) {
	fs, tools := newFake(t)
	fs.AddDevice(kitchen, laptop)
	fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Context: morning.URI(), Track: harbour.URI(),
		Playing: true, ProgressMs: 83000, Shuffle: true, Repeat: "context"})
	out := mustCall(t, tools, "now_playing", `{}`)
	wantAll(t, out, "Playing on Kitchen speaker (Speaker, volume 40%)", `"Harbour Lights" by The Quiet Engines, from Low Tide`,
		harbour.URI(), "1:23 of 3:34", "shuffle on, repeat context", "From playlist "+morning.URI())

	fs.SetPlayback(fakespotify.Playback{Device: laptop.ID, Track: copper.URI(), ProgressMs: 5000})
	out = mustCall(t, tools, "now_playing", ``)
	wantAll(t, out, "Paused on Work laptop", "Mina Vale, Otto Rask", "0:05 of 4:05", "shuffle off, repeat off")
}

func TestNowPlayingAndQueueTakeEpisodes_P6(t *testing.T) {
	fs, tools := newFake(t)
	ep := fakespotify.Track{ID: "e1tides", Name: "On Tides", Show: "The Coastal Hour", DurationMs: 3725000}
	ep2 := fakespotify.Track{ID: "e2storms", Name: "On Storms", Show: "The Coastal Hour", DurationMs: 3000000}
	fs.AddTrack(ep, ep2)
	fs.AddDevice(kitchen)
	fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Track: ep.URI(), Playing: true, ProgressMs: 61000})
	wantAll(t, mustCall(t, tools, "now_playing", `{}`), `"On Tides" (episode from The Coastal Hour, spotify:episode:e1tides)`, "1:01 of 1:02:05")
	mustCall(t, tools, "queue", `{"uri":"spotify:episode:e2storms"}`)
	if q := fs.Player().Queue; !slices.Equal(q, []string{ep2.URI()}) {
		t.Errorf("queue %v", q)
	}
}

func TestNowPlayingSaysNothingPlaysWhenSpotifyAnswers204_P6(t *testing.T) {
	fs, tools := newFake(t)
	fs.AddDevice(kitchen) // not active: Spotify answers 204
	out := mustCall(t, tools, "now_playing", `{}`)
	if out != "Nothing is playing on Spotify." {
		t.Errorf("got %q", out)
	}
}

func TestSearchListsNumberedResultsWithURIs_P6(t *testing.T) {
	_, tools := newFake(t)
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"tracks by artist", `{"query":"quiet engines"}`, []string{
			"1. Harbour Lights — The Quiet Engines — Low Tide — 3:34 — spotify:track:t1harbour",
			"2. Paper Moons — The Quiet Engines — Low Tide — 3:07 — spotify:track:t2paper"}},
		{"albums", `{"query":"northbound","type":"album"}`, []string{
			"1. Northbound — Mina Vale, Otto Rask — 2021, 1 track — " + fakespotify.AlbumURI("Northbound")}},
		{"artists, plural type", `{"query":"mina","type":"artists"}`, []string{
			"1. Mina Vale — " + fakespotify.ArtistURI("Mina Vale")}},
		{"playlists", `{"query":"quiet evenings","type":"playlist"}`, []string{
			"1. Quiet Evenings — by Someone Else, 1 track — spotify:playlist:p4public"}},
		{"nothing", `{"query":"no such words"}`, []string{`No tracks on Spotify match "no such words".`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantAll(t, mustCall(t, tools, "search", tc.args), tc.want...)
		})
	}
}

// A Development Mode app may ask search for at most 10 items per type;
// the fake refuses more, as Spotify does, so a limit past it is cut.
func TestSearchLimitDefaultsToFiveAndStopsAtTen_P6(t *testing.T) {
	fs, tools := newFake(t)
	for i := range 12 {
		fs.AddTrack(fakespotify.Track{ID: fmt.Sprintf("echo%d", i), Name: fmt.Sprintf("Echo %d", i), Artists: []string{"Loop Choir"}, DurationMs: 60000})
	}
	count := func(out string) int { return strings.Count(out, "spotify:track:") }
	if n := count(mustCall(t, tools, "search", `{"query":"echo"}`)); n != 5 {
		t.Errorf("default limit gave %d results, want 5", n)
	}
	if n := count(mustCall(t, tools, "search", `{"query":"echo","limit":20}`)); n != 10 {
		t.Errorf("limit 20 gave %d results, want 10", n)
	}
	if n := count(mustCall(t, tools, "search", `{"query":"echo","limit":2}`)); n != 2 {
		t.Errorf("limit 2 gave %d results", n)
	}
}

func TestListDevicesShowsActiveVolumeAndIDs_P6(t *testing.T) {
	fs, tools := newFake(t)
	out := mustCall(t, tools, "list_devices", `{}`)
	wantAll(t, out, "No Spotify devices are available", "open")
	fs.AddDevice(kitchen, fakespotify.Device{ID: "dtv", Name: "Living room TV", Type: "TV", Restricted: true, NoVolume: true})
	fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Track: harbour.URI()})
	out = mustCall(t, tools, "list_devices", `{}`)
	wantAll(t, out, "1. Kitchen speaker — Speaker, active, volume 40% — id dkitchen", "2. Living room TV — TV, takes no remote control — id dtv")
}

func TestPlayStartsWhatItIsGiven_P6(t *testing.T) {
	for _, tc := range []struct {
		name, args     string
		track, context string
		out            string
	}{
		{"a track", `{"uri":"spotify:track:t3copper"}`, copper.URI(), "", "Playing the track spotify:track:t3copper."},
		{"an album", `{"uri":"` + fakespotify.AlbumURI("Low Tide") + `"}`, harbour.URI(), fakespotify.AlbumURI("Low Tide"), "Playing the album"},
		{"a pasted link", `{"uri":"https://open.spotify.com/intl-de/playlist/p1morning?si=abc"}`, harbour.URI(), morning.URI(), "Playing the playlist spotify:playlist:p1morning."},
		{"an artist", `{"uri":"` + fakespotify.ArtistURI("Mina Vale") + `"}`, copper.URI(), fakespotify.ArtistURI("Mina Vale"), "Playing the artist"},
		{"words: the first track found", `{"query":"paper moons"}`, paper.URI(), "", `Playing "Paper Moons" by The Quiet Engines, from Low Tide (spotify:track:t2paper).`},
		{"nothing: resume", `{}`, harbour.URI(), morning.URI(), "Resumed playback."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, tools := newFake(t)
			fs.AddDevice(kitchen, laptop)
			fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Context: morning.URI(), Track: harbour.URI()})
			out := mustCall(t, tools, "play", tc.args)
			wantAll(t, out, tc.out)
			p := fs.Player()
			if !p.Playing || p.Track != tc.track || p.Context != tc.context || p.Device != kitchen.ID {
				t.Errorf("player %+v; want %s from %q playing on the kitchen", p, tc.track, tc.context)
			}
		})
	}
}

func TestPlayOnTheDeviceTheOwnerNamed_P6(t *testing.T) {
	fs, tools := newFake(t)
	fs.AddDevice(kitchen, laptop)
	fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Track: harbour.URI()})
	out := mustCall(t, tools, "play", `{"uri":"spotify:track:t2paper","device":"laptop"}`)
	wantAll(t, out, "on Work laptop")
	if p := fs.Player(); p.Device != laptop.ID || p.Track != paper.URI() {
		t.Errorf("player %+v; want paper on the laptop", p)
	}
	_, err := call(t, tools, "play", `{"device":"car"}`)
	wantCode(t, err, jarvisbot.ENOTFOUND, `no Spotify device is called "car"`, "Kitchen speaker (Speaker)", "Work laptop (Computer)")

	fs.AddDevice(fakespotify.Device{ID: "dtv", Name: "Living room TV", Type: "TV", Restricted: true})
	_, err = call(t, tools, "pause", `{"device":"tv"}`)
	wantCode(t, err, jarvisbot.EINVALID, "Living room TV does not accept remote control", "Work laptop (Computer)")

	fs.AddDevice(fakespotify.Device{ID: "dlaptop2", Name: "Home laptop", Type: "Computer"})
	_, err = call(t, tools, "set_volume", `{"percent":10,"device":"laptop"}`)
	wantCode(t, err, jarvisbot.EINVALID, `"laptop" fits several`, "Work laptop", "Home laptop")
}

func TestPlaybackCommandsChangeThePlayer_P6(t *testing.T) {
	fs, tools := newFake(t)
	fs.AddDevice(kitchen, laptop)
	fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Context: morning.URI(), Track: harbour.URI(), Playing: true})

	wantAll(t, mustCall(t, tools, "pause", `{}`), "Paused.")
	if fs.Player().Playing {
		t.Error("still playing after pause")
	}
	wantAll(t, mustCall(t, tools, "queue", `{"uri":"spotify:track:t2paper"}`), "Queued spotify:track:t2paper")
	if q := fs.Player().Queue; !slices.Equal(q, []string{paper.URI()}) {
		t.Errorf("queue %v", q)
	}
	wantAll(t, mustCall(t, tools, "next", `{}`), "Skipped to the next track.")
	if p := fs.Player(); p.Track != paper.URI() || len(p.Queue) != 0 {
		t.Errorf("after next: %+v; want the queued track", p)
	}
	mustCall(t, tools, "next", `{}`)
	if p := fs.Player(); p.Track != copper.URI() {
		t.Errorf("after next: %+v; want the playlist's second track", p)
	}
	wantAll(t, mustCall(t, tools, "previous", `{}`), "Went back to the previous track.")
	if p := fs.Player(); p.Track != harbour.URI() {
		t.Errorf("after previous: %+v; want the playlist's first track", p)
	}
	wantAll(t, mustCall(t, tools, "set_volume", `{"percent":0}`), "Volume set to 0%.")
	wantAll(t, mustCall(t, tools, "set_volume", `{"percent":65,"device":"Work laptop"}`), "Volume set to 65% on Work laptop.")
	vols := map[string]int{}
	for _, d := range fs.Devices() {
		vols[d.ID] = d.Volume
	}
	if vols[kitchen.ID] != 0 || vols[laptop.ID] != 65 {
		t.Errorf("volumes %v", vols)
	}
}

func TestPlayPlaylistByNameAmongTheOwnersOrByURI_P6(t *testing.T) {
	for _, tc := range []struct {
		name, arg string
		want      string
		code      jarvisbot.Code
		parts     []string
	}{
		{"whole name, any case", "sunday morning", morning.URI(), "", []string{`Playing the playlist "Sunday Morning" (spotify:playlist:p1morning).`}},
		{"part of a name", "deep work", focus.URI(), "", nil},
		{"a URI", "spotify:playlist:p4public", public.URI(), "", []string{"Playing the playlist spotify:playlist:p4public."}},
		{"several fit", "sunday", "", jarvisbot.EINVALID, []string{"Sunday Morning", "Sunday Run", "spotify:playlist:p2run"}},
		{"not the owner's", "quiet evenings", "", jarvisbot.ENOTFOUND, []string{"none of the owner's 3 Spotify playlists", "search with type playlist"}},
		{"an album's URI", fakespotify.AlbumURI("Low Tide"), "", jarvisbot.EINVALID, []string{"not a playlist"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, tools := newFake(t)
			fs.AddDevice(kitchen)
			fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Track: paper.URI()})
			args, _ := json.Marshal(map[string]string{"playlist": tc.arg})
			out, err := call(t, tools, "play_playlist", string(args))
			if tc.code != "" {
				wantCode(t, err, tc.code, tc.parts...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantAll(t, out, tc.parts...)
			if p := fs.Player(); p.Context != tc.want || !p.Playing {
				t.Errorf("player %+v; want %s playing", p, tc.want)
			}
		})
	}
}

func TestPlayPlaylistReadsEveryPageOfTheOwnersPlaylists_P6(t *testing.T) {
	fs, tools := newFake(t)
	fs.AddDevice(kitchen)
	for i := range 120 {
		fs.AddPlaylist(fakespotify.Playlist{ID: fmt.Sprintf("mix%d", i), Name: fmt.Sprintf("Mix %03d", i), Mine: true})
	}
	last := fakespotify.Playlist{ID: "pbottom", Name: "Bottom Of The List", Tracks: []string{"t3copper"}, Mine: true}
	fs.AddPlaylist(last)
	mustCall(t, tools, "play_playlist", `{"playlist":"bottom of the list"}`)
	if p := fs.Player(); p.Context != last.URI() {
		t.Errorf("player %+v; want the last playlist", p)
	}
	var pages int
	for _, r := range fs.Requests() {
		if r == "GET /v1/me/playlists" {
			pages++
		}
	}
	if pages != 3 {
		t.Errorf("%d pages of playlists read, want 3 (124 playlists, 50 a page)", pages)
	}
}

// Spotify answers 404 NO_ACTIVE_DEVICE when no device is active; the tools
// then pick the only device, or say what the owner has to do.
func TestNoActiveDevicePicksTheOnlyOneOrSaysWhatToDo_P6(t *testing.T) {
	t.Run("one device: playback moves there and the command is sent again", func(t *testing.T) {
		fs, tools := newFake(t)
		fs.AddDevice(kitchen)
		out := mustCall(t, tools, "play", `{"uri":"spotify:track:t1harbour"}`)
		wantAll(t, out, "on Kitchen speaker")
		if p := fs.Player(); p.Device != kitchen.ID || !p.Playing || p.Track != harbour.URI() {
			t.Errorf("player %+v; want harbour playing on the kitchen speaker", p)
		}
		if !slices.Contains(fs.Requests(), "PUT /v1/me/player") {
			t.Errorf("no transfer among %v", fs.Requests())
		}
	})
	t.Run("one that takes commands beside a restricted one", func(t *testing.T) {
		fs, tools := newFake(t)
		fs.AddDevice(fakespotify.Device{ID: "dtv", Name: "TV", Restricted: true}, laptop)
		wantAll(t, mustCall(t, tools, "set_volume", `{"percent":30}`), "Volume set to 30% on Work laptop.")
	})
	t.Run("none", func(t *testing.T) {
		_, tools := newFake(t)
		_, err := call(t, tools, "play", `{"query":"copper sky"}`)
		wantCode(t, err, jarvisbot.EUNAVAILABLE, "open Spotify on a phone or computer")
	})
	t.Run("several: names them and asks which", func(t *testing.T) {
		fs, tools := newFake(t)
		fs.AddDevice(kitchen, laptop)
		_, err := call(t, tools, "next", `{}`)
		wantCode(t, err, jarvisbot.EINVALID, "Kitchen speaker (Speaker)", "Work laptop (Computer)", "which one")
		if p := fs.Player(); p.Device != "" {
			t.Errorf("playback moved to %s without the owner choosing", p.Device)
		}
	})
	t.Run("several, one named", func(t *testing.T) {
		fs, tools := newFake(t)
		fs.AddDevice(kitchen, laptop)
		mustCall(t, tools, "play_playlist", `{"playlist":"Sunday Morning","device":"kitchen"}`)
		if p := fs.Player(); p.Device != kitchen.ID || p.Context != morning.URI() {
			t.Errorf("player %+v", p)
		}
	})
	t.Run("pause has nothing to pause", func(t *testing.T) {
		fs, tools := newFake(t)
		fs.AddDevice(kitchen)
		wantAll(t, mustCall(t, tools, "pause", `{}`), "Nothing is playing")
		if slices.Contains(fs.Requests(), "PUT /v1/me/player") {
			t.Error("pause moved playback to a device")
		}
	})
}

func TestPremiumRequiredSaysSoPlainly_P6(t *testing.T) {
	fs, tools := newFake(t, fakespotify.WithoutPremium())
	fs.AddDevice(kitchen)
	fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Track: harbour.URI()})
	_, err := call(t, tools, "play", `{}`)
	wantCode(t, err, jarvisbot.EFORBIDDEN, "Premium", "Spotify app")
	// Reading needs no Premium.
	wantAll(t, mustCall(t, tools, "now_playing", `{}`), "Harbour Lights")
}

func TestRateLimitedAnswersAreRetried_P6(t *testing.T) {
	fs, tools := newFake(t)
	fs.Fail(http.MethodGet, "/v1/search", http.StatusTooManyRequests, 2)
	wantAll(t, mustCall(t, tools, "search", `{"query":"harbour"}`), "Harbour Lights")

	// Past the transport's attempts, the model hears it is rate limiting.
	fs.Fail(http.MethodPost, "/v1/me/player/next", http.StatusTooManyRequests, retry.DefaultAttempts)
	fs.AddDevice(kitchen)
	fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Context: morning.URI(), Track: harbour.URI()})
	_, err := call(t, tools, "next", `{}`)
	wantCode(t, err, jarvisbot.EUNAVAILABLE, "rate limiting")

	fs.FailReason(http.MethodGet, "/v1/me/player/devices", http.StatusTooManyRequests, "QUOTA_EXCEEDED", retry.DefaultAttempts)
	_, err = call(t, tools, "list_devices", `{}`)
	wantCode(t, err, jarvisbot.EUNAVAILABLE, "quota")
}

func TestRefusedSignInKeepsSpotifys401_P6(t *testing.T) {
	fs := fakespotify.New(t, fakespotify.WithAuth(fakespotify.Only(token)))
	tools := toolsFor(fs, "expired-token")
	_, err := call(t, tools, "now_playing", `{}`)
	wantCode(t, err, jarvisbot.EUNAVAILABLE, "refused the sign-in", "jarvisbot plugins signin spotify")
	var ae *spotify.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		t.Errorf("error %v does not carry Spotify's 401", err)
	}
	if strings.Contains(err.Error(), "expired-token") {
		t.Errorf("the token leaks into the error: %v", err)
	}
	// The right token passes.
	mustCall(t, toolsFor(fs, token), "list_devices", `{}`)
}

func TestOtherSpotifyErrorsKeepTheirCodes_P6(t *testing.T) {
	fs, tools := newFake(t)
	fs.AddDevice(kitchen)
	fs.SetPlayback(fakespotify.Playback{Device: kitchen.ID, Track: harbour.URI()})
	_, err := call(t, tools, "queue", `{"uri":"spotify:track:doesnotexist"}`)
	wantCode(t, err, jarvisbot.ENOTFOUND, "add spotify:track:doesnotexist to the queue")
	fs.Fail(http.MethodPut, "/v1/me/player/pause", http.StatusBadGateway, 1)
	_, err = call(t, tools, "pause", `{}`)
	wantCode(t, err, jarvisbot.EUNAVAILABLE, "pause playback", "502")
}

func TestBadArgumentsAreEINVALID_P6(t *testing.T) {
	fs, tools := newFake(t)
	fs.AddDevice(kitchen)
	for _, tc := range []struct{ tool, args, says string }{
		{"search", `{}`, "query is required"},
		{"search", `{"query":"x","type":"podcast"}`, "type must be one of"},
		{"search", `{"query":"x","limit":"many"}`, "schema"},
		{"play", `{"uri":"harbour lights"}`, "not a Spotify URI"},
		{"play", `{"uri":"spotify:track:t1harbour","query":"paper"}`, "not both"},
		{"play", `{"uri":"spotify:user:bob"}`, "not a Spotify URI"},
		{"play", `{"song":"x"}`, "schema"},
		{"queue", `{}`, "uri is required"},
		{"queue", `{"uri":"spotify:album:lowtide"}`, "only a track or an episode"},
		{"set_volume", `{}`, "percent is required"},
		{"set_volume", `{"percent":150}`, "between 0 and 100"},
		{"set_volume", `{"percent":-1}`, "between 0 and 100"},
		{"play_playlist", `{}`, "playlist is required"},
		{"play_playlist", `{"playlist":"spotify:playlist:"}`, "not a Spotify URI"},
		{"pause", `{"device":3}`, "schema"},
	} {
		_, err := call(t, tools, tc.tool, tc.args)
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(fmt.Sprint(err), tc.says) {
			t.Errorf("%s %s: %v; want EINVALID saying %q", tc.tool, tc.args, err, tc.says)
		}
	}
	// Nothing bad reached Spotify's player.
	for _, r := range fs.Requests() {
		if strings.HasPrefix(r, "PUT /v1/me/player") || strings.HasPrefix(r, "POST ") {
			t.Errorf("a refused call still sent %s", r)
		}
	}
}
