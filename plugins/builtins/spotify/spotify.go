// Package spotify is the built-in Spotify plugin's tools (SPEC P6): what
// is playing, search, playback control (play, pause, next, previous,
// queue, volume, a playlist) and the owner's devices, over the Spotify Web
// API with a small typed client on net/http (client.go). The HTTP client
// the tools are given carries the owner's sign-in (plugins/signin: OAuth
// PKCE with the owner's own client id) and may retry busy answers
// (internal/retry); the endpoint can be moved, so tests run the tools
// against internal/fakes/fakespotify.
//
// Player commands act on the active device. When there is none, Spotify
// answers 404 NO_ACTIVE_DEVICE; the tools then look at the owner's
// devices and move playback to the only one (or the one named), and say
// what to do when there is none or several (player.go).
package spotify

import (
	"net/http"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// Plugin is the plugin's name in the store.
const Plugin = "spotify"

// Options is how the tools reach Spotify.
type Options struct {
	// HTTPClient sends every request; it carries the sign-in. nil is
	// http.DefaultClient, which Spotify refuses with 401.
	HTTPClient *http.Client
	// Endpoint is the Web API's base, "" for DefaultEndpoint; tests give
	// fakespotify's URL.
	Endpoint string
}

func (o Options) client() *client {
	c := &client{http: o.HTTPClient, base: o.Endpoint}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	if c.base == "" {
		c.base = DefaultEndpoint
	}
	if !strings.HasSuffix(c.base, "/") {
		c.base += "/"
	}
	return c
}

// Tools returns the plugin's tools: reading is safe, changing playback is
// monitor (recorded on the activity board, no approval needed).
func Tools(o Options) []native.Tool {
	t := &tools{c: o.client()}
	return []native.Tool{
		{
			Name:        "now_playing",
			Description: "Show what is playing on Spotify now: the track or episode, artists, album, progress, the device, volume, shuffle and repeat. Says so when nothing is playing.",
			Schema:      `{"type":"object","properties":{},"additionalProperties":false}`,
			Tier:        catalog.TierSafe,
			Run:         t.nowPlaying,
		},
		{
			Name:        "search",
			Description: "Search Spotify's catalogue for tracks, albums, artists or playlists by words (title, artist, album). Lists numbered results with name, artists, album, duration and the spotify: URI to pass to play or queue.",
			Schema: `{"type":"object","properties":{` +
				`"query":{"type":"string","description":"words to search for, such as a title and an artist"},` +
				`"type":{"type":"string","enum":["track","album","artist","playlist"],"description":"what to find; default track"},` +
				`"limit":{"type":"integer","minimum":1,"maximum":10,"description":"how many results; default 5, at most 10"}},` +
				`"required":["query"],"additionalProperties":false}`,
			Tier: catalog.TierSafe,
			Run:  t.search,
		},
		{
			Name:        "list_devices",
			Description: "List the owner's Spotify devices (phones, computers, speakers) with which one is active and its volume; their names can be passed as device to the playback tools.",
			Schema:      `{"type":"object","properties":{},"additionalProperties":false}`,
			Tier:        catalog.TierSafe,
			Run:         t.listDevices,
		},
		{
			Name: "play",
			Description: "Start or resume Spotify playback. With no uri and no query it resumes what was playing. uri plays a track, album, playlist or artist (a spotify: URI from search, or an open.spotify.com link). " +
				"query searches tracks by words and plays the first hit. device names the device to play on; without it the active one is used, or the only one there is.",
			Schema: `{"type":"object","properties":{` +
				`"uri":{"type":"string","description":"spotify:track:…, spotify:album:…, spotify:playlist:… or spotify:artist:… to play"},` +
				`"query":{"type":"string","description":"words of a track to search for and play the first hit, instead of uri"},` +
				`"device":{"type":"string","description":"device name or id; optional"}},` +
				`"additionalProperties":false}`,
			Tier:     catalog.TierMonitor,
			Run:      t.play,
			Describe: describeCall("Start or resume playback on Spotify"),
		},
		{
			Name:        "pause",
			Description: "Pause Spotify playback.",
			Schema:      deviceOnlySchema,
			Tier:        catalog.TierMonitor,
			Run:         t.pause,
			Describe:    describeCall("Pause Spotify"),
		},
		{
			Name:        "next",
			Description: "Skip to the next track on Spotify.",
			Schema:      deviceOnlySchema,
			Tier:        catalog.TierMonitor,
			Run:         t.skip("next", "Skipped to the next track"),
			Describe:    describeCall("Skip to the next track on Spotify"),
		},
		{
			Name:        "previous",
			Description: "Go back to the previous track on Spotify.",
			Schema:      deviceOnlySchema,
			Tier:        catalog.TierMonitor,
			Run:         t.skip("previous", "Went back to the previous track"),
			Describe:    describeCall("Go back to the previous track on Spotify"),
		},
		{
			Name:        "queue",
			Description: "Add a track to the Spotify queue, to play after the current one (and anything queued before). uri is a spotify:track: URI from search.",
			Schema: `{"type":"object","properties":{` +
				`"uri":{"type":"string","description":"spotify:track:… (or spotify:episode:…) to queue"},` +
				`"device":{"type":"string","description":"device name or id; optional"}},` +
				`"required":["uri"],"additionalProperties":false}`,
			Tier:     catalog.TierMonitor,
			Run:      t.queue,
			Describe: describeCall("Add a track to the Spotify queue"),
		},
		{
			Name:        "set_volume",
			Description: "Set the Spotify volume, 0 to 100 percent, on the active device or the one named.",
			Schema: `{"type":"object","properties":{` +
				`"percent":{"type":"integer","minimum":0,"maximum":100,"description":"volume in percent"},` +
				`"device":{"type":"string","description":"device name or id; optional"}},` +
				`"required":["percent"],"additionalProperties":false}`,
			Tier:     catalog.TierMonitor,
			Run:      t.setVolume,
			Describe: describeCall("Set the Spotify volume"),
		},
		{
			Name:        "play_playlist",
			Description: "Play one of the owner's Spotify playlists, by its name (looked up among the owner's playlists) or by its spotify:playlist: URI.",
			Schema: `{"type":"object","properties":{` +
				`"playlist":{"type":"string","description":"the playlist's name, or its spotify:playlist:… URI"},` +
				`"device":{"type":"string","description":"device name or id; optional"}},` +
				`"required":["playlist"],"additionalProperties":false}`,
			Tier:     catalog.TierMonitor,
			Run:      t.playPlaylist,
			Describe: describeCall("Play a playlist on Spotify"),
		},
	}
}

const deviceOnlySchema = `{"type":"object","properties":{"device":{"type":"string","description":"device name or id; optional"}},"additionalProperties":false}`

// tools holds what the tools share.
type tools struct {
	c *client
}
