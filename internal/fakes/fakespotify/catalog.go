package fakespotify

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Track is a track of the fake's catalog. Its artists and album become
// artist and album objects of their own, with ids made from their names
// (see Slug), so a test seeds tracks only. With Show set it is a podcast
// episode of that show instead (spotify:episode:ID), found by no search.
type Track struct {
	ID         string
	Name       string
	Artists    []string
	Album      string
	Year       string // the album's release date, such as "2013"
	DurationMs int
	Show       string
}

// URI is the track's Spotify URI.
func (t Track) URI() string {
	if t.Show != "" {
		return "spotify:episode:" + t.ID
	}
	return "spotify:track:" + t.ID
}

// Playlist is a playlist of the fake's catalog.
type Playlist struct {
	ID          string
	Name        string
	Owner       string
	Description string
	Tracks      []string // track ids, in order
	// Mine lists it among the owner's playlists (GET /v1/me/playlists);
	// every playlist is found by search.
	Mine bool
}

// URI is the playlist's Spotify URI.
func (p Playlist) URI() string { return "spotify:playlist:" + p.ID }

// Slug is the id the fake gives an artist or album named name: its
// letters and digits, lower-cased. AlbumURI and ArtistURI use it.
func Slug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// AlbumURI is the URI of the album named name.
func AlbumURI(name string) string { return "spotify:album:" + Slug(name) }

// ArtistURI is the URI of the artist named name.
func ArtistURI(name string) string { return "spotify:artist:" + Slug(name) }

// AddTrack puts tracks in the catalog.
func (s *Server) AddTrack(tracks ...Track) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tracks = append(s.tracks, tracks...)
}

// AddPlaylist puts playlists in the catalog.
func (s *Server) AddPlaylist(playlists ...Playlist) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.playlists = append(s.playlists, playlists...)
}

// catalogRoutes serves search and the owner's playlists.
func (s *Server) catalogRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/search", s.search)
	mux.HandleFunc("GET /v1/me/playlists", s.myPlaylists)
}

// searchTypes are the types the fake searches, in Spotify's order of
// result keys.
var searchTypes = []string{"album", "artist", "playlist", "track"}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if strings.TrimSpace(q.Get("q")) == "" {
		Error(w, http.StatusBadRequest, "No search query", "")
		return
	}
	if q.Get("type") == "" {
		Error(w, http.StatusBadRequest, "Missing parameter type", "")
		return
	}
	types := strings.Split(q.Get("type"), ",")
	for _, t := range types {
		if !slices.Contains(searchTypes, t) {
			Error(w, http.StatusBadRequest, "Bad search type field "+t, "")
			return
		}
	}
	// Development Mode apps may ask for at most 10 items per type (the
	// February 2026 Web API change); the default is 5.
	limit, offset, ok := pageArgs(q.Get("limit"), q.Get("offset"), 5, 10)
	if !ok {
		Error(w, http.StatusBadRequest, "Invalid limit", "")
		return
	}
	words := queryWords(q.Get("q"))
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]any{}
	for _, t := range types {
		var items []any
		switch t {
		case "track":
			for _, tr := range s.tracks {
				if tr.Show == "" && matches(words, tr.Name, strings.Join(tr.Artists, " "), tr.Album) {
					items = append(items, s.trackJSON(tr))
				}
			}
		case "album":
			for _, name := range s.albumNames() {
				if matches(words, name, strings.Join(s.albumArtists(name), " ")) {
					items = append(items, s.albumJSON(name))
				}
			}
		case "artist":
			for _, name := range s.artistNames() {
				if matches(words, name) {
					items = append(items, artistJSON(name))
				}
			}
		case "playlist":
			for _, p := range s.playlists {
				if matches(words, p.Name, p.Description) {
					items = append(items, playlistJSON(p))
				}
			}
		}
		out[t+"s"] = s.page(r, "search", items, limit, offset)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) myPlaylists(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, offset, ok := pageArgs(q.Get("limit"), q.Get("offset"), 20, 50)
	if !ok {
		Error(w, http.StatusBadRequest, "Invalid limit", "")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var items []any
	for _, p := range s.playlists {
		if p.Mine {
			items = append(items, playlistJSON(p))
		}
	}
	writeJSON(w, http.StatusOK, s.page(r, "me/playlists", items, limit, offset))
}

// pageArgs reads limit and offset, def and most bounding limit; ok is
// false for a limit or offset Spotify refuses.
func pageArgs(limitArg, offsetArg string, def, most int) (limit, offset int, ok bool) {
	limit, offset = def, 0
	if limitArg != "" {
		n, err := strconv.Atoi(limitArg)
		if err != nil || n < 1 || n > most {
			return 0, 0, false
		}
		limit = n
	}
	if offsetArg != "" {
		n, err := strconv.Atoi(offsetArg)
		if err != nil || n < 0 {
			return 0, 0, false
		}
		offset = n
	}
	return limit, offset, true
}

// page is Spotify's paging object over items.
func (s *Server) page(r *http.Request, path string, items []any, limit, offset int) map[string]any {
	base := "http://" + r.Host + "/v1/" + path
	link := func(off int) any {
		return fmt.Sprintf("%s?offset=%d&limit=%d", base, off, limit)
	}
	start := min(offset, len(items))
	end := min(start+limit, len(items))
	var next, prev any
	if end < len(items) {
		next = link(end)
	}
	if start > 0 {
		prev = link(max(start-limit, 0))
	}
	shown := items[start:end]
	if shown == nil {
		shown = []any{}
	}
	return map[string]any{
		"href": link(offset), "items": shown, "limit": limit, "offset": offset,
		"next": next, "previous": prev, "total": len(items),
	}
}

// queryWords are a search's words, lower-cased, with field filters such
// as artist: reduced to their value.
func queryWords(q string) []string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if _, v, ok := strings.Cut(w, ":"); ok {
			w = v
		}
		if w = strings.Trim(w, `"`); w != "" {
			words = append(words, w)
		}
	}
	return words
}

// matches reports whether every word occurs in one of fields.
func matches(words []string, fields ...string) bool {
	hay := strings.ToLower(strings.Join(fields, " "))
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return len(words) > 0
}

// track finds a track by id; the caller holds s.mu.
func (s *Server) track(id string) (Track, bool) {
	for _, t := range s.tracks {
		if t.ID == id {
			return t, true
		}
	}
	return Track{}, false
}

// albumNames lists the catalog's albums in the order their first track
// was added; the caller holds s.mu.
func (s *Server) albumNames() []string {
	var names []string
	for _, t := range s.tracks {
		if t.Album != "" && !slices.Contains(names, t.Album) {
			names = append(names, t.Album)
		}
	}
	return names
}

// albumTracks lists the album's tracks; the caller holds s.mu.
func (s *Server) albumTracks(name string) []Track {
	var ts []Track
	for _, t := range s.tracks {
		if t.Album == name {
			ts = append(ts, t)
		}
	}
	return ts
}

func (s *Server) albumArtists(name string) []string {
	if ts := s.albumTracks(name); len(ts) > 0 {
		return ts[0].Artists
	}
	return nil
}

func (s *Server) artistNames() []string {
	var names []string
	for _, t := range s.tracks {
		for _, a := range t.Artists {
			if !slices.Contains(names, a) {
				names = append(names, a)
			}
		}
	}
	return names
}

func artistJSON(name string) map[string]any {
	id := Slug(name)
	return map[string]any{
		"id": id, "name": name, "type": "artist", "uri": "spotify:artist:" + id,
		"href":          "https://api.spotify.com/v1/artists/" + id,
		"external_urls": map[string]string{"spotify": "https://open.spotify.com/artist/" + id},
	}
}

func (s *Server) albumJSON(name string) map[string]any {
	id := Slug(name)
	ts := s.albumTracks(name)
	var artists []any
	date := ""
	if len(ts) > 0 {
		for _, a := range ts[0].Artists {
			artists = append(artists, artistJSON(a))
		}
		date = ts[0].Year
	}
	return map[string]any{
		"id": id, "name": name, "type": "album", "album_type": "album", "uri": "spotify:album:" + id,
		"href":         "https://api.spotify.com/v1/albums/" + id,
		"artists":      artists,
		"release_date": date, "release_date_precision": "year",
		"total_tracks": len(ts),
	}
}

func (s *Server) trackJSON(t Track) map[string]any {
	if t.Show != "" {
		return map[string]any{
			"id": t.ID, "name": t.Name, "type": "episode", "uri": t.URI(),
			"href":        "https://api.spotify.com/v1/episodes/" + t.ID,
			"duration_ms": t.DurationMs, "explicit": false,
			"show": map[string]any{"id": Slug(t.Show), "name": t.Show, "type": "show", "uri": "spotify:show:" + Slug(t.Show)},
		}
	}
	var artists []any
	for _, a := range t.Artists {
		artists = append(artists, artistJSON(a))
	}
	m := map[string]any{
		"id": t.ID, "name": t.Name, "type": "track", "uri": t.URI(),
		"href":        "https://api.spotify.com/v1/tracks/" + t.ID,
		"duration_ms": t.DurationMs, "explicit": false, "is_local": false,
		"disc_number": 1, "track_number": 1,
		"artists": artists,
	}
	if t.Album != "" {
		m["album"] = s.albumJSON(t.Album)
	}
	return m
}

// playlistJSON is a simplified playlist object as listed by search and
// /me/playlists; since February 2026 its track count is under "items".
func playlistJSON(p Playlist) map[string]any {
	return map[string]any{
		"id": p.ID, "name": p.Name, "type": "playlist", "uri": p.URI(),
		"description":   p.Description,
		"href":          "https://api.spotify.com/v1/playlists/" + p.ID,
		"owner":         map[string]any{"id": Slug(p.Owner), "display_name": p.Owner, "type": "user"},
		"public":        false,
		"collaborative": false,
		"items":         map[string]any{"href": "https://api.spotify.com/v1/playlists/" + p.ID + "/items", "total": len(p.Tracks)},
	}
}
