package spotify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// Search bounds: Development Mode apps, which is what an owner's own
// client id is, may ask for at most 10 results per type since February
// 2026 (Spotify answers 400 beyond).
const (
	searchDefault = 5
	searchMost    = 10
)

// maxPlaylistPages bounds the owner's playlists read to find one by name
// (50 a page).
const maxPlaylistPages = 20

func (t *tools) nowPlaying(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{}
	if err := native.Decode(args, &a); err != nil {
		return "", err
	}
	st, err := t.c.state(ctx)
	if err != nil {
		return "", apiError(err, "read what Spotify is playing")
	}
	if st == nil {
		return "Nothing is playing on Spotify.", nil
	}
	var b strings.Builder
	verb := "Paused"
	if st.Playing {
		verb = "Playing"
	}
	where := ""
	if d := st.Device; d != nil {
		where = " on " + d.Name
		var about []string
		if d.Type != "" {
			about = append(about, d.Type)
		}
		if d.Volume != nil {
			about = append(about, fmt.Sprintf("volume %d%%", *d.Volume))
		}
		if len(about) > 0 {
			where += " (" + strings.Join(about, ", ") + ")"
		}
	}
	it := st.Item
	if it == nil {
		if st.PlayingType == "ad" {
			return "An ad is playing" + where + ".", nil
		}
		return verb + where + ", but Spotify does not say what.", nil
	}
	fmt.Fprintf(&b, "%s%s:\n%s\n", verb, where, describe(*it))
	fmt.Fprintf(&b, "%s of %s", duration(st.ProgressMs), duration(it.DurationMs))
	if st.Device != nil { // the player's full state, which has these
		repeat := st.Repeat
		if repeat == "" {
			repeat = "off"
		}
		fmt.Fprintf(&b, ", shuffle %s, repeat %s", onOff(st.Shuffle), repeat)
	}
	b.WriteString("\n")
	if c := st.Context; c != nil && c.URI != "" {
		fmt.Fprintf(&b, "From %s %s\n", c.Type, c.URI)
	}
	return b.String(), nil
}

// describe is one line about a track or episode: its name, who made it,
// where it is from, and its URI.
func describe(it item) string {
	if it.Type == "episode" {
		show := ""
		if it.Show != nil {
			show = " from " + it.Show.Name
		}
		return fmt.Sprintf("%q (episode%s, %s)", it.Name, show, it.URI)
	}
	s := fmt.Sprintf("%q", it.Name)
	if len(it.Artists) > 0 {
		s += " by " + names(it.Artists)
	}
	if it.Album != nil && it.Album.Name != "" {
		s += ", from " + it.Album.Name
	}
	return s + " (" + it.URI + ")"
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// duration shows milliseconds as m:ss, or h:mm:ss from an hour.
func duration(ms int) string {
	s := ms / 1000
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// searchKinds are the kinds search takes.
var searchKinds = []string{"track", "album", "artist", "playlist"}

func (t *tools) search(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Query string `json:"query"`
		Type  string `json:"type"`
		Limit int    `json:"limit"`
	}
	if err := native.Decode(args, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Query) == "" {
		return "", native.Need("query")
	}
	kind := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(a.Type)), "s")
	if kind == "" {
		kind = "track"
	}
	if !slices.Contains(searchKinds, kind) {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "type must be one of %s, not %q", strings.Join(searchKinds, ", "), a.Type)
	}
	limit := native.Limit(a.Limit, searchDefault, searchMost)
	res, err := t.c.search(ctx, a.Query, kind, limit)
	if err != nil {
		return "", apiError(err, "search Spotify")
	}
	var lines []string
	switch kind {
	case "track":
		if res.Tracks != nil {
			for _, it := range res.Tracks.Items {
				if it == nil {
					continue
				}
				line := it.Name
				if len(it.Artists) > 0 {
					line += " — " + names(it.Artists)
				}
				if it.Album != nil && it.Album.Name != "" {
					line += " — " + it.Album.Name
				}
				lines = append(lines, line+" — "+duration(it.DurationMs)+" — "+it.URI)
			}
		}
	case "album":
		if res.Albums != nil {
			for _, al := range res.Albums.Items {
				if al == nil {
					continue
				}
				line := al.Name
				if len(al.Artists) > 0 {
					line += " — " + names(al.Artists)
				}
				var about []string
				if y, _, _ := strings.Cut(al.ReleaseDate, "-"); y != "" {
					about = append(about, y)
				}
				if al.TotalTracks > 0 {
					about = append(about, plural(al.TotalTracks, "track"))
				}
				if len(about) > 0 {
					line += " — " + strings.Join(about, ", ")
				}
				lines = append(lines, line+" — "+al.URI)
			}
		}
	case "artist":
		if res.Artists != nil {
			for _, ar := range res.Artists.Items {
				if ar != nil {
					lines = append(lines, ar.Name+" — "+ar.URI)
				}
			}
		}
	case "playlist":
		if res.Playlists != nil {
			for _, p := range res.Playlists.Items {
				if p != nil {
					lines = append(lines, playlistLine(*p))
				}
			}
		}
	}
	if len(lines) == 0 {
		return fmt.Sprintf("No %ss on Spotify match %q.", kind, a.Query), nil
	}
	return numbered(lines), nil
}

func playlistLine(p playlist) string {
	line := p.Name
	if p.Owner.DisplayName != "" {
		line += " — by " + p.Owner.DisplayName
	}
	if n := p.total(); n > 0 {
		line += ", " + plural(n, "track")
	}
	return line + " — " + p.URI
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func numbered(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%d. %s\n", i+1, native.OneLine(l))
	}
	return b.String()
}

func (t *tools) listDevices(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{}
	if err := native.Decode(args, &a); err != nil {
		return "", err
	}
	devs, err := t.c.devices(ctx)
	if err != nil {
		return "", apiError(err, "list the Spotify devices")
	}
	if len(devs) == 0 {
		return "No Spotify devices are available: Spotify has to be open on a phone, computer or speaker signed in to the owner's account.", nil
	}
	var lines []string
	for _, d := range devs {
		var about []string
		if d.Type != "" {
			about = append(about, d.Type)
		}
		if d.Active {
			about = append(about, "active")
		}
		if d.Volume != nil {
			about = append(about, fmt.Sprintf("volume %d%%", *d.Volume))
		}
		if d.Restricted {
			about = append(about, "takes no remote control")
		}
		line := d.Name
		if len(about) > 0 {
			line += " — " + strings.Join(about, ", ")
		}
		if d.ID != "" {
			line += " — id " + d.ID
		}
		lines = append(lines, line)
	}
	return numbered(lines), nil
}

type deviceArgs struct {
	Device string `json:"device"`
}

func (t *tools) play(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		URI    string `json:"uri"`
		Query  string `json:"query"`
		Device string `json:"device"`
	}
	if err := native.Decode(args, &a); err != nil {
		return "", err
	}
	a.URI, a.Query = strings.TrimSpace(a.URI), strings.TrimSpace(a.Query)
	var body playBody
	what := ""
	switch {
	case a.URI != "" && a.Query != "":
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "give uri or query, not both")
	case a.URI != "":
		kind, uri, err := parseURI(a.URI)
		if err != nil {
			return "", err
		}
		switch kind {
		case "track", "episode":
			body.URIs = []string{uri}
		case "album", "playlist", "artist", "show":
			body.ContextURI = uri
		default:
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "a %s cannot be played; give a track, album, playlist or artist", kind)
		}
		what = "the " + kind + " " + uri
	case a.Query != "":
		res, err := t.c.search(ctx, a.Query, "track", 1)
		if err != nil {
			return "", apiError(err, "search Spotify")
		}
		var first *item
		if res.Tracks != nil {
			for _, it := range res.Tracks.Items {
				if it != nil {
					first = it
					break
				}
			}
		}
		if first == nil {
			return "", jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no track on Spotify matches %q; try other words, or search albums or playlists", a.Query)
		}
		body.URIs = []string{first.URI}
		what = describe(*first)
	}
	dev, err := t.control(ctx, a.Device, func(ctx context.Context, id string) error { return t.c.play(ctx, id, body) })
	if err != nil {
		return "", apiError(err, "start playback")
	}
	if what == "" {
		return "Resumed playback" + on(dev) + ".", nil
	}
	return "Playing " + what + on(dev) + ".", nil
}

func (t *tools) pause(ctx context.Context, args json.RawMessage) (string, error) {
	var a deviceArgs
	if err := native.Decode(args, &a); err != nil {
		return "", err
	}
	dev := ""
	if a.Device != "" {
		devs, err := t.c.devices(ctx)
		if err != nil {
			return "", apiError(err, "list the Spotify devices")
		}
		d, err := findDevice(devs, a.Device)
		if err != nil {
			return "", err
		}
		dev = d.ID
		a.Device = d.Name
	}
	// With no active device nothing plays: there is nothing to move
	// playback to only to pause it.
	if err := t.c.pause(ctx, dev); hasReason(err, reasonNoActiveDevice) {
		return "Nothing is playing on Spotify, so there is nothing to pause.", nil
	} else if err != nil {
		return "", apiError(err, "pause playback")
	}
	return "Paused" + on(a.Device) + ".", nil
}

// skip is the next or previous tool.
func (t *tools) skip(dir, done string) func(context.Context, json.RawMessage) (string, error) {
	return func(ctx context.Context, args json.RawMessage) (string, error) {
		var a deviceArgs
		if err := native.Decode(args, &a); err != nil {
			return "", err
		}
		dev, err := t.control(ctx, a.Device, func(ctx context.Context, id string) error { return t.c.skip(ctx, id, dir) })
		if err != nil {
			return "", apiError(err, "skip to the "+dir+" track")
		}
		return done + on(dev) + ".", nil
	}
}

func (t *tools) queue(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		URI    string `json:"uri"`
		Device string `json:"device"`
	}
	if err := native.Decode(args, &a); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.URI) == "" {
		return "", native.Need("uri")
	}
	kind, uri, err := parseURI(a.URI)
	if err != nil {
		return "", err
	}
	if kind != "track" && kind != "episode" {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "only a track or an episode can be queued, not a %s; use play for albums and playlists", kind)
	}
	dev, err := t.control(ctx, a.Device, func(ctx context.Context, id string) error { return t.c.queue(ctx, id, uri) })
	if err != nil {
		return "", apiError(err, "add "+uri+" to the queue")
	}
	return "Queued " + uri + on(dev) + "; it plays after the current track and anything queued before it.", nil
}

func (t *tools) setVolume(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Percent *int   `json:"percent"`
		Device  string `json:"device"`
	}
	if err := native.Decode(args, &a); err != nil {
		return "", err
	}
	if a.Percent == nil {
		return "", native.Need("percent")
	}
	p := *a.Percent
	if p < 0 || p > 100 {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "percent must be between 0 and 100, not %d", p)
	}
	dev, err := t.control(ctx, a.Device, func(ctx context.Context, id string) error { return t.c.volume(ctx, id, p) })
	if err != nil {
		return "", apiError(err, "set the volume")
	}
	return fmt.Sprintf("Volume set to %d%%%s.", p, on(dev)), nil
}

func (t *tools) playPlaylist(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Playlist string `json:"playlist"`
		Device   string `json:"device"`
	}
	if err := native.Decode(args, &a); err != nil {
		return "", err
	}
	name := strings.TrimSpace(a.Playlist)
	if name == "" {
		return "", native.Need("playlist")
	}
	var pl playlist
	if kind, uri, err := parseURI(name); err == nil {
		if kind != "playlist" {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s is a %s, not a playlist; use play for it", uri, kind)
		}
		pl.URI = uri
	} else if looksLikeURI(name) {
		return "", err
	} else if pl, err = t.findPlaylist(ctx, name); err != nil {
		return "", err
	}
	dev, err := t.control(ctx, a.Device, func(ctx context.Context, id string) error {
		return t.c.play(ctx, id, playBody{ContextURI: pl.URI})
	})
	if err != nil {
		return "", apiError(err, "play the playlist")
	}
	if pl.Name != "" {
		return fmt.Sprintf("Playing the playlist %q (%s)%s.", pl.Name, pl.URI, on(dev)), nil
	}
	return "Playing the playlist " + pl.URI + on(dev) + ".", nil
}

// findPlaylist looks the name up among the owner's playlists: a whole
// name (any case) wins, else the playlists whose names hold all its words;
// several of those are named for the owner to choose.
func (t *tools) findPlaylist(ctx context.Context, name string) (playlist, error) {
	var all []playlist
	for pg := 0; pg < maxPlaylistPages; pg++ {
		p, err := t.c.myPlaylists(ctx, len(all))
		if err != nil {
			return playlist{}, apiError(err, "list the owner's playlists")
		}
		n := len(all)
		for _, it := range p.Items {
			if it != nil {
				all = append(all, *it)
			}
		}
		if len(p.Items) < playlistPageSize || len(all) >= p.Total || len(all) == n {
			break
		}
	}
	want := strings.ToLower(name)
	var exact, part []playlist
	words := strings.Fields(want)
	for _, p := range all {
		have := strings.ToLower(p.Name)
		if have == want {
			exact = append(exact, p)
			continue
		}
		hit := true
		for _, w := range words {
			if !strings.Contains(have, w) {
				hit = false
				break
			}
		}
		if hit {
			part = append(part, p)
		}
	}
	found := exact
	if len(found) == 0 {
		found = part
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return playlist{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND,
			"none of the owner's %d Spotify playlists is called %q; search with type playlist to find others", len(all), name)
	}
	var lines []string
	for _, p := range found[:min(len(found), 10)] {
		lines = append(lines, playlistLine(p))
	}
	return playlist{}, jarvisbot.Errorf(jarvisbot.EINVALID,
		"several of the owner's playlists fit %q; ask which, then call again with its URI:\n%s", name, numbered(lines))
}

// uriKinds are the kinds of Spotify URI the tools pass on.
var uriKinds = []string{"track", "album", "playlist", "artist", "episode", "show"}

// looksLikeURI reports whether s was meant as a URI or link rather than a
// name.
func looksLikeURI(s string) bool {
	return strings.HasPrefix(s, "spotify:") || strings.Contains(s, "open.spotify.com/")
}

// parseURI reads a spotify:KIND:ID URI, or an open.spotify.com link the
// owner pasted, and returns its kind and the URI.
func parseURI(s string) (kind, uri string, err error) {
	s = strings.TrimSpace(s)
	var id string
	if rest, ok := strings.CutPrefix(s, "spotify:"); ok {
		kind, id, _ = strings.Cut(rest, ":")
	} else if u, perr := url.Parse(s); perr == nil && u.Host == "open.spotify.com" {
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if len(parts) > 0 && strings.HasPrefix(parts[0], "intl-") {
			parts = parts[1:]
		}
		if len(parts) == 2 {
			kind, id = parts[0], parts[1]
		}
	}
	if !slices.Contains(uriKinds, kind) || !base62(id) {
		return "", "", jarvisbot.Errorf(jarvisbot.EINVALID,
			"%q is not a Spotify URI; give one like spotify:track:… from search, or an open.spotify.com link", s)
	}
	return kind, "spotify:" + kind + ":" + id, nil
}

// base62 reports whether id is a Spotify id: letters and digits.
func base62(id string) bool {
	if id == "" {
		return false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
