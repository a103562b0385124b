package spotify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

// DefaultEndpoint is the Spotify Web API's base.
const DefaultEndpoint = "https://api.spotify.com/v1/"

// maxBody bounds what one answer may hold; a search page or a page of
// playlists is a few tens of kilobytes.
const maxBody = 4 << 20

// client calls the few Web API endpoints the tools need, with JSON types
// holding only the fields they read.
type client struct {
	http *http.Client
	base string // ends in /
}

// APIError is what Spotify answered to a failed request: its HTTP status
// and the error body's message and reason (such as NO_ACTIVE_DEVICE or
// PREMIUM_REQUIRED for player commands). The tools' errors wrap it, so a
// caller can tell a refused sign-in (Status 401) with errors.As.
type APIError struct {
	Status  int
	Message string
	Reason  string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if e.Reason != "" {
		return fmt.Sprintf("Spotify answered %d: %s (%s)", e.Status, msg, e.Reason)
	}
	return fmt.Sprintf("Spotify answered %d: %s", e.Status, msg)
}

// Spotify's reasons the tools act on.
const (
	reasonNoActiveDevice  = "NO_ACTIVE_DEVICE"
	reasonPremiumRequired = "PREMIUM_REQUIRED"
	reasonQuotaExceeded   = "QUOTA_EXCEEDED"
)

// hasReason reports whether err is Spotify's answer with reason.
func hasReason(err error, reason string) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Reason == reason
}

// do sends one request. in, when not nil, is sent as JSON; out, when not
// nil, receives a 200's JSON. It reports whether Spotify answered 204 No
// Content, which the player's state uses for "nothing is playing".
func (c *client) do(ctx context.Context, method, path string, q url.Values, in, out any) (noContent bool, err error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return false, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return false, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	lim := sizelimit.Limit{What: "an answer of the Spotify Web API", Max: maxBody}
	data, err := lim.ReadAll(resp.Body, "Spotify's answer to "+method+" "+path)
	if err != nil {
		return false, fmt.Errorf("reading Spotify's answer to %s %s: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return false, decodeError(resp.StatusCode, data)
	}
	if resp.StatusCode == http.StatusNoContent || len(bytes.TrimSpace(data)) == 0 {
		return true, nil
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return false, fmt.Errorf("reading Spotify's answer to %s %s: %w", method, path, err)
		}
	}
	return false, nil
}

// decodeError reads Spotify's error body; an answer without one (a proxy's
// page) keeps its status.
func decodeError(status int, data []byte) error {
	var e struct {
		Error struct {
			Status  int    `json:"status"`
			Message string `json:"message"`
			Reason  string `json:"reason"`
		} `json:"error"`
	}
	ae := &APIError{Status: status}
	// The authorization server answers {"error":"invalid_token",...}, a
	// string: it then has no message worth keeping.
	if json.Unmarshal(data, &e) == nil {
		ae.Message, ae.Reason = e.Error.Message, e.Error.Reason
	}
	return ae
}

// apiError words a failed call for the model and keeps a code the runtime
// can act on; doing says what the tool tried ("pause playback").
func apiError(err error, doing string) error {
	var je *jarvisbot.Error
	var ue *url.Error
	if errors.As(err, &je) && !errors.As(err, &ue) {
		return err // ours, worded for the model already
	}
	var ae *APIError
	if errors.As(err, &ae) {
		switch {
		case ae.Reason == reasonPremiumRequired:
			return jarvisbot.Errorf(jarvisbot.EFORBIDDEN,
				"%s: Spotify lets apps control playback only for Premium accounts, and the signed-in account is not Premium; the owner can play music in the Spotify app instead (%w)", doing, ae)
		case ae.Status == http.StatusUnauthorized:
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE,
				"%s: Spotify refused the sign-in; the owner renews it with `jarvisbot plugins signin spotify` (%w)", doing, ae)
		case ae.Status == http.StatusTooManyRequests && ae.Reason == reasonQuotaExceeded:
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE,
				"%s: the owner's Spotify app has used up its request quota; try again later (%w)", doing, ae)
		case ae.Status == http.StatusTooManyRequests:
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: Spotify is rate limiting; try again in a minute (%w)", doing, ae)
		case ae.Status == http.StatusBadRequest:
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: Spotify refused the request: %w", doing, ae)
		case ae.Status == http.StatusNotFound:
			return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s: not found: %w", doing, ae)
		case ae.Status == http.StatusForbidden:
			return jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "%s: Spotify does not allow it: %w", doing, ae)
		}
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: %w", doing, ae)
	}
	// The network, or the sign-in's transport (which words its own error
	// and code, such as EUNAVAILABLE when the sign-in needs attention).
	code := jarvisbot.ErrorCode(err)
	if code == jarvisbot.EINTERNAL && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		code = jarvisbot.EUNAVAILABLE
	}
	return jarvisbot.Errorf(code, "%s: %w", doing, err)
}

// The Web API's objects, with only the fields the tools read.

type artist struct {
	Name string `json:"name"`
	URI  string `json:"uri"`
}

type album struct {
	Name        string   `json:"name"`
	URI         string   `json:"uri"`
	Artists     []artist `json:"artists"`
	ReleaseDate string   `json:"release_date"`
	TotalTracks int      `json:"total_tracks"`
}

// item is a track or, when Type is "episode", a podcast episode.
type item struct {
	Type       string   `json:"type"`
	Name       string   `json:"name"`
	URI        string   `json:"uri"`
	DurationMs int      `json:"duration_ms"`
	Artists    []artist `json:"artists"`
	Album      *album   `json:"album"`
	Show       *struct {
		Name string `json:"name"`
	} `json:"show"`
}

type device struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Type       string `json:"type"`
	Active     bool   `json:"is_active"`
	Restricted bool   `json:"is_restricted"`
	Volume     *int   `json:"volume_percent"`
}

type playbackState struct {
	Device  *device `json:"device"`
	Shuffle bool    `json:"shuffle_state"`
	Repeat  string  `json:"repeat_state"`
	Context *struct {
		Type string `json:"type"`
		URI  string `json:"uri"`
	} `json:"context"`
	ProgressMs  int    `json:"progress_ms"`
	Playing     bool   `json:"is_playing"`
	Item        *item  `json:"item"`
	PlayingType string `json:"currently_playing_type"`
}

// playlist is a simplified playlist. Since February 2026 Spotify counts
// its tracks under "items"; "tracks" is the older name, still read.
type playlist struct {
	Name  string `json:"name"`
	URI   string `json:"uri"`
	Owner struct {
		DisplayName string `json:"display_name"`
	} `json:"owner"`
	Items *struct {
		Total int `json:"total"`
	} `json:"items"`
	Tracks *struct {
		Total int `json:"total"`
	} `json:"tracks"`
}

func (p playlist) total() int {
	switch {
	case p.Items != nil:
		return p.Items.Total
	case p.Tracks != nil:
		return p.Tracks.Total
	}
	return 0
}

// page is a paging object. Search may hold null entries (Spotify returns
// them for playlists it cannot show), so items are pointers.
type page[T any] struct {
	Items []*T `json:"items"`
	Total int  `json:"total"`
}

type searchResult struct {
	Tracks    *page[item]     `json:"tracks"`
	Albums    *page[album]    `json:"albums"`
	Artists   *page[artist]   `json:"artists"`
	Playlists *page[playlist] `json:"playlists"`
}

// The endpoints.

func (c *client) state(ctx context.Context) (*playbackState, error) {
	var st playbackState
	none, err := c.do(ctx, http.MethodGet, "me/player", url.Values{"additional_types": {"track,episode"}}, nil, &st)
	if err != nil || none {
		return nil, err
	}
	return &st, nil
}

func (c *client) devices(ctx context.Context) ([]device, error) {
	var out struct {
		Devices []device `json:"devices"`
	}
	_, err := c.do(ctx, http.MethodGet, "me/player/devices", nil, nil, &out)
	return out.Devices, err
}

// onDevice is the query naming the device a command acts on; "" is the
// active one.
func onDevice(id string) url.Values {
	if id == "" {
		return nil
	}
	return url.Values{"device_id": {id}}
}

// playBody is what to play: a context (album, playlist, artist) or
// tracks; empty resumes.
type playBody struct {
	ContextURI string   `json:"context_uri,omitempty"`
	URIs       []string `json:"uris,omitempty"`
}

func (c *client) play(ctx context.Context, deviceID string, b playBody) error {
	var in any
	if b.ContextURI != "" || len(b.URIs) > 0 {
		in = b
	}
	_, err := c.do(ctx, http.MethodPut, "me/player/play", onDevice(deviceID), in, nil)
	return err
}

func (c *client) pause(ctx context.Context, deviceID string) error {
	_, err := c.do(ctx, http.MethodPut, "me/player/pause", onDevice(deviceID), nil, nil)
	return err
}

// skip moves to the next or previous track (dir "next" or "previous").
func (c *client) skip(ctx context.Context, deviceID, dir string) error {
	_, err := c.do(ctx, http.MethodPost, "me/player/"+dir, onDevice(deviceID), nil, nil)
	return err
}

func (c *client) queue(ctx context.Context, deviceID, uri string) error {
	q := url.Values{"uri": {uri}}
	if deviceID != "" {
		q.Set("device_id", deviceID)
	}
	_, err := c.do(ctx, http.MethodPost, "me/player/queue", q, nil, nil)
	return err
}

func (c *client) volume(ctx context.Context, deviceID string, percent int) error {
	q := url.Values{"volume_percent": {strconv.Itoa(percent)}}
	if deviceID != "" {
		q.Set("device_id", deviceID)
	}
	_, err := c.do(ctx, http.MethodPut, "me/player/volume", q, nil, nil)
	return err
}

// transfer moves playback to the device, keeping whether it plays.
func (c *client) transfer(ctx context.Context, deviceID string) error {
	in := struct {
		DeviceIDs []string `json:"device_ids"`
	}{[]string{deviceID}}
	_, err := c.do(ctx, http.MethodPut, "me/player", nil, in, nil)
	return err
}

func (c *client) search(ctx context.Context, query, kind string, limit int) (*searchResult, error) {
	var out searchResult
	q := url.Values{"q": {query}, "type": {kind}, "limit": {strconv.Itoa(limit)}}
	_, err := c.do(ctx, http.MethodGet, "search", q, nil, &out)
	return &out, err
}

// playlistPageSize is the most /me/playlists gives at once.
const playlistPageSize = 50

func (c *client) myPlaylists(ctx context.Context, offset int) (*page[playlist], error) {
	var out page[playlist]
	q := url.Values{"limit": {strconv.Itoa(playlistPageSize)}, "offset": {strconv.Itoa(offset)}}
	_, err := c.do(ctx, http.MethodGet, "me/playlists", q, nil, &out)
	return &out, err
}

// names joins the artists' names.
func names(as []artist) string {
	var ns []string
	for _, a := range as {
		ns = append(ns, a.Name)
	}
	return strings.Join(ns, ", ")
}
