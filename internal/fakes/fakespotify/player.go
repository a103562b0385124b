package fakespotify

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// Device is one of the owner's Spotify Connect devices.
type Device struct {
	ID         string
	Name       string
	Type       string // Computer, Smartphone, Speaker, …
	Volume     int    // 0–100
	Active     bool   // the device playback is on (at most one)
	Restricted bool   // accepts no Web API commands
	NoVolume   bool   // its volume cannot be set
}

// Playback is the player's state as a test seeds or reads it.
type Playback struct {
	Device     string   // the active device's id; "" when none is active
	Context    string   // the album, playlist or artist URI being played; "" for none
	Track      string   // the current track's URI; "" for nothing loaded
	Playing    bool     // playing rather than paused
	ProgressMs int      // position in the track
	Queue      []string // track URIs queued to play next, in order
	Shuffle    bool
	Repeat     string // off, track or context; "" reads as off
}

// player is the fake's player state; tracks are held by id.
type player struct {
	context    string
	list       []string // the context's track ids, or the uris played
	index      int
	current    string
	playing    bool
	progressMs int
	queue      []string
	shuffle    bool
	repeat     string
}

// AddDevice adds devices; one marked Active becomes the active device.
func (s *Server) AddDevice(devices ...Device) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range devices {
		if d.Active {
			for i := range s.devices {
				s.devices[i].Active = false
			}
		}
		s.devices = append(s.devices, d)
	}
}

// RemoveDevice takes the device away, as when Spotify is closed on it.
func (s *Server) RemoveDevice(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.devices = slices.DeleteFunc(s.devices, func(d Device) bool { return d.ID == id })
}

// Devices returns the devices as they are now (volume, which is active).
func (s *Server) Devices() []Device { return restapi.Copy(&s.mu, &s.devices) }

// SetPlayback seeds the player: the active device, what plays from which
// context, and the queue. The track must be in the catalog.
func (s *Server) SetPlayback(p Playback) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.devices {
		s.devices[i].Active = s.devices[i].ID == p.Device
	}
	_, cur := splitURI(p.Track)
	list, _ := s.contextTracks(p.Context)
	idx := slices.Index(list, cur)
	if idx < 0 {
		list, idx = []string{cur}, 0
	}
	var queue []string
	for _, u := range p.Queue {
		_, id := splitURI(u)
		queue = append(queue, id)
	}
	s.player = player{
		context: p.Context, list: list, index: idx, current: cur,
		playing: p.Playing, progressMs: p.ProgressMs, queue: queue,
		shuffle: p.Shuffle, repeat: p.Repeat,
	}
}

// Player returns the player's state.
func (s *Server) Player() Playback {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := Playback{
		Context: s.player.context, Playing: s.player.playing, ProgressMs: s.player.progressMs,
		Shuffle: s.player.shuffle, Repeat: s.player.repeat,
	}
	if d := s.activeDevice(); d != nil {
		p.Device = d.ID
	}
	if t, ok := s.track(s.player.current); ok {
		p.Track = t.URI()
	}
	for _, id := range s.player.queue {
		if t, ok := s.track(id); ok {
			p.Queue = append(p.Queue, t.URI())
		}
	}
	return p
}

func (s *Server) playerRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/me/player", func(w http.ResponseWriter, r *http.Request) { s.state(w, r, true) })
	mux.HandleFunc("GET /v1/me/player/currently-playing", func(w http.ResponseWriter, r *http.Request) { s.state(w, r, false) })
	mux.HandleFunc("GET /v1/me/player/devices", s.listDevices)
	mux.HandleFunc("PUT /v1/me/player", s.transfer)
	mux.HandleFunc("PUT /v1/me/player/play", s.play)
	mux.HandleFunc("PUT /v1/me/player/pause", s.command(func(w http.ResponseWriter, r *http.Request, d *Device) bool {
		s.player.playing = false
		return true
	}))
	mux.HandleFunc("POST /v1/me/player/next", s.command(s.next))
	mux.HandleFunc("POST /v1/me/player/previous", s.command(func(w http.ResponseWriter, r *http.Request, d *Device) bool {
		if s.player.index > 0 && s.player.progressMs < 3000 {
			s.player.index--
			s.player.current = s.player.list[s.player.index]
		}
		s.player.progressMs = 0
		return true
	}))
	mux.HandleFunc("POST /v1/me/player/queue", s.command(s.enqueue))
	mux.HandleFunc("PUT /v1/me/player/volume", s.command(s.volume))
}

// activeDevice is the active device or nil; the caller holds s.mu.
func (s *Server) activeDevice() *Device {
	for i := range s.devices {
		if s.devices[i].Active {
			return &s.devices[i]
		}
	}
	return nil
}

func (s *Server) device(id string) *Device {
	for i := range s.devices {
		if s.devices[i].ID == id {
			return &s.devices[i]
		}
	}
	return nil
}

// activate makes d the active device; the caller holds s.mu.
func (s *Server) activate(d *Device) {
	for i := range s.devices {
		s.devices[i].Active = &s.devices[i] == d
	}
}

// target finds the device a player command acts on, answering as Spotify
// does when there is none; the caller holds s.mu.
func (s *Server) target(w http.ResponseWriter, r *http.Request) *Device {
	if s.notPremium {
		Error(w, http.StatusForbidden, "Player command failed: Premium required", "PREMIUM_REQUIRED")
		return nil
	}
	var d *Device
	if id := r.URL.Query().Get("device_id"); id != "" {
		if d = s.device(id); d == nil {
			Error(w, http.StatusNotFound, "Device not found", "")
			return nil
		}
	} else if d = s.activeDevice(); d == nil {
		Error(w, http.StatusNotFound, "Player command failed: No active device found", "NO_ACTIVE_DEVICE")
		return nil
	}
	if d.Restricted {
		Error(w, http.StatusForbidden, "Player command failed: Restriction violated", "DEVICE_NOT_CONTROLLABLE")
		return nil
	}
	return d
}

// command wraps a player command: it finds the target device, runs do
// (which answers itself when it returns false) and answers 204.
func (s *Server) command(do func(w http.ResponseWriter, r *http.Request, d *Device) bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		d := s.target(w, r)
		if d == nil {
			return
		}
		if !do(w, r, d) {
			return
		}
		s.activate(d)
		w.WriteHeader(http.StatusNoContent)
	}
}

// state answers the player's state; full adds the device, shuffle and
// repeat (GET /me/player) to what currently-playing tells. Like Spotify, an
// episode is shown only to a client that asks for additional_types=episode.
func (s *Server) state(w http.ResponseWriter, r *http.Request, full bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.activeDevice()
	if d == nil || (!full && s.player.current == "") {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	out := map[string]any{
		"timestamp":              1764720000000,
		"progress_ms":            s.player.progressMs,
		"is_playing":             s.player.playing,
		"currently_playing_type": "track",
		"context":                nil,
		"item":                   nil,
		"actions":                map[string]any{"disallows": map[string]bool{"resuming": s.player.playing}},
	}
	if full {
		repeat := s.player.repeat
		if repeat == "" {
			repeat = "off"
		}
		out["device"] = deviceJSON(*d)
		out["shuffle_state"] = s.player.shuffle
		out["repeat_state"] = repeat
	}
	if s.player.context != "" {
		kind, id := splitURI(s.player.context)
		out["context"] = map[string]any{
			"type": kind, "uri": s.player.context,
			"href":          "https://api.spotify.com/v1/" + kind + "s/" + id,
			"external_urls": map[string]string{"spotify": "https://open.spotify.com/" + kind + "/" + id},
		}
	}
	if t, ok := s.track(s.player.current); ok {
		if t.Show != "" {
			out["currently_playing_type"] = "episode"
		}
		if t.Show == "" || slices.Contains(strings.Split(r.URL.Query().Get("additional_types"), ","), "episode") {
			out["item"] = s.trackJSON(t)
		}
	} else {
		out["currently_playing_type"] = "unknown"
	}
	writeJSON(w, http.StatusOK, out)
}

func deviceJSON(d Device) map[string]any {
	var vol any = d.Volume
	if d.NoVolume {
		vol = nil
	}
	return map[string]any{
		"id": d.ID, "name": d.Name, "type": d.Type, "is_active": d.Active,
		"is_private_session": false, "is_restricted": d.Restricted,
		"volume_percent": vol, "supports_volume": !d.NoVolume,
	}
}

func (s *Server) listDevices(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := []any{}
	for _, d := range s.devices {
		list = append(list, deviceJSON(d))
	}
	writeJSON(w, http.StatusOK, map[string]any{"devices": list})
}

func (s *Server) transfer(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DeviceIDs []string `json:"device_ids"`
		Play      bool     `json:"play"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		Error(w, http.StatusBadRequest, "Malformed json", "")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notPremium {
		Error(w, http.StatusForbidden, "Player command failed: Premium required", "PREMIUM_REQUIRED")
		return
	}
	if len(body.DeviceIDs) != 1 {
		Error(w, http.StatusBadRequest, "Only one device_id is supported", "")
		return
	}
	d := s.device(body.DeviceIDs[0])
	if d == nil {
		Error(w, http.StatusNotFound, "Device not found", "")
		return
	}
	s.activate(d)
	if body.Play && s.player.current != "" {
		s.player.playing = true
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) play(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ContextURI string   `json:"context_uri"`
		URIs       []string `json:"uris"`
		Offset     *struct {
			Position *int   `json:"position"`
			URI      string `json:"uri"`
		} `json:"offset"`
		PositionMs int `json:"position_ms"`
	}
	if r.ContentLength != 0 {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			Error(w, http.StatusBadRequest, "Malformed json", "")
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.target(w, r)
	if d == nil {
		return
	}
	var list []string
	switch {
	case body.ContextURI != "" && len(body.URIs) > 0:
		Error(w, http.StatusBadRequest, "Only one of context_uri and uris may be given", "")
		return
	case body.ContextURI != "":
		ts, ok := s.contextTracks(body.ContextURI)
		if !ok {
			Error(w, http.StatusNotFound, "Not found.", "")
			return
		}
		list = ts
	case len(body.URIs) > 0:
		for _, u := range body.URIs {
			_, id := splitURI(u)
			if t, ok := s.track(id); !ok || t.URI() != u {
				Error(w, http.StatusBadRequest, "Invalid track uri: "+u, "")
				return
			}
			list = append(list, id)
		}
	default: // resume
		if s.player.current == "" {
			Error(w, http.StatusForbidden, "Player command failed: Restriction violated", "UNKNOWN")
			return
		}
		s.player.playing = true
		s.activate(d)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if len(list) == 0 {
		Error(w, http.StatusForbidden, "Player command failed: Restriction violated", "UNKNOWN")
		return
	}
	idx := 0
	if body.Offset != nil {
		switch {
		case body.Offset.Position != nil:
			idx = *body.Offset.Position
		case body.Offset.URI != "":
			_, id := splitURI(body.Offset.URI)
			idx = slices.Index(list, id)
		}
		if idx < 0 || idx >= len(list) {
			Error(w, http.StatusBadRequest, "Invalid offset", "")
			return
		}
	}
	s.player.context = body.ContextURI
	s.player.list, s.player.index, s.player.current = list, idx, list[idx]
	s.player.playing, s.player.progressMs = true, body.PositionMs
	s.activate(d)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) next(w http.ResponseWriter, r *http.Request, d *Device) bool {
	p := &s.player
	switch {
	case len(p.queue) > 0:
		p.current, p.queue = p.queue[0], p.queue[1:]
	case p.index+1 < len(p.list):
		p.index++
		p.current = p.list[p.index]
	case p.repeat == "context" && len(p.list) > 0:
		p.index = 0
		p.current = p.list[0]
	default:
		Error(w, http.StatusForbidden, "Player command failed: No next track", "NO_NEXT_TRACK")
		return false
	}
	p.progressMs = 0
	return true
}

func (s *Server) enqueue(w http.ResponseWriter, r *http.Request, d *Device) bool {
	u := r.URL.Query().Get("uri")
	kind, id := splitURI(u)
	if kind != "track" && kind != "episode" {
		Error(w, http.StatusBadRequest, "Unsupported uri kind", "")
		return false
	}
	if t, ok := s.track(id); !ok || t.URI() != u {
		Error(w, http.StatusNotFound, "Not found.", "")
		return false
	}
	s.player.queue = append(s.player.queue, id)
	return true
}

func (s *Server) volume(w http.ResponseWriter, r *http.Request, d *Device) bool {
	v, err := strconv.Atoi(r.URL.Query().Get("volume_percent"))
	if err != nil || v < 0 || v > 100 {
		Error(w, http.StatusBadRequest, "Invalid volume_percent", "")
		return false
	}
	if d.NoVolume {
		Error(w, http.StatusForbidden, "Player command failed: Cannot control device volume", "VOLUME_CONTROL_DISALLOW")
		return false
	}
	d.Volume = v
	return true
}

// contextTracks lists the track ids an album, playlist or artist URI
// plays; the caller holds s.mu.
func (s *Server) contextTracks(uri string) ([]string, bool) {
	kind, id := splitURI(uri)
	var ids []string
	switch kind {
	case "album":
		for _, name := range s.albumNames() {
			if Slug(name) == id {
				for _, t := range s.albumTracks(name) {
					ids = append(ids, t.ID)
				}
				return ids, true
			}
		}
	case "playlist":
		for _, p := range s.playlists {
			if p.ID == id {
				return append(ids, p.Tracks...), true
			}
		}
	case "artist":
		for _, t := range s.tracks {
			for _, a := range t.Artists {
				if Slug(a) == id {
					ids = append(ids, t.ID)
					break
				}
			}
		}
		return ids, len(ids) > 0
	}
	return nil, false
}

// splitURI splits spotify:KIND:ID.
func splitURI(uri string) (kind, id string) {
	parts := strings.Split(uri, ":")
	if len(parts) != 3 || parts[0] != "spotify" {
		return "", ""
	}
	return parts[1], parts[2]
}
