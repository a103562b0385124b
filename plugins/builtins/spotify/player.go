package spotify

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// control sends a player command to the device the owner named, or to the
// active one, and returns the name of the device it went to when known.
//
// Spotify keeps a device active only while it plays or shortly after; a
// command with none active answers 404 NO_ACTIVE_DEVICE. Then the owner's
// devices decide: with exactly one that takes commands (or the one named),
// playback moves there (PUT /me/player) and the command is sent once more;
// with none, the owner has to open Spotify somewhere; with several, the
// model asks which.
func (t *tools) control(ctx context.Context, named string, send func(ctx context.Context, deviceID string) error) (string, error) {
	var target device
	if named != "" {
		devs, err := t.c.devices(ctx)
		if err != nil {
			return "", apiError(err, "list the Spotify devices")
		}
		if target, err = findDevice(devs, named); err != nil {
			return "", err
		}
	}
	err := send(ctx, target.ID)
	if !hasReason(err, reasonNoActiveDevice) {
		return target.Name, err
	}
	if target.ID == "" {
		devs, err := t.c.devices(ctx)
		if err != nil {
			return "", apiError(err, "list the Spotify devices")
		}
		if target, err = onlyDevice(devs); err != nil {
			return "", err
		}
	}
	if err := t.c.transfer(ctx, target.ID); err != nil {
		return "", apiError(err, "move playback to "+target.Name)
	}
	return target.Name, send(ctx, target.ID)
}

// controllable are the devices that take Web API commands.
func controllable(devs []device) []device {
	var ok []device
	for _, d := range devs {
		if !d.Restricted && d.ID != "" {
			ok = append(ok, d)
		}
	}
	return ok
}

// errNoDevice is the answer when the owner has no device Spotify can play
// on: only the owner can fix that.
func errNoDevice(devs []device) error {
	if len(devs) > 0 {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE,
			"none of the owner's Spotify devices (%s) accepts remote control; open Spotify on a phone or computer signed in to the owner's account, then try again", deviceList(devs))
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE,
		"no Spotify device is available to play on; open Spotify on a phone or computer signed in to the owner's account, then try again")
}

// onlyDevice picks the device to move playback to when none is active.
func onlyDevice(devs []device) (device, error) {
	ok := controllable(devs)
	switch len(ok) {
	case 0:
		return device{}, errNoDevice(devs)
	case 1:
		return ok[0], nil
	}
	return device{}, jarvisbot.Errorf(jarvisbot.EINVALID,
		"no Spotify device is active and there are several: %s; ask the owner which one, then call again with device set to its name", deviceList(ok))
}

// findDevice picks the device the owner named: by id, by its whole name
// (any case), or by part of its name when only one device has that part.
func findDevice(devs []device, named string) (device, error) {
	ok := controllable(devs)
	if len(ok) == 0 {
		return device{}, errNoDevice(devs)
	}
	want := strings.ToLower(strings.TrimSpace(named))
	for _, d := range ok {
		if d.ID == named || strings.ToLower(d.Name) == want {
			return d, nil
		}
	}
	var part []device
	for _, d := range ok {
		if strings.Contains(strings.ToLower(d.Name), want) {
			part = append(part, d)
		}
	}
	switch len(part) {
	case 1:
		return part[0], nil
	case 0:
		for _, d := range devs {
			if d.Restricted && (d.ID == named || strings.Contains(strings.ToLower(d.Name), want)) {
				return device{}, jarvisbot.Errorf(jarvisbot.EINVALID,
					"%s does not accept remote control from apps; the devices that do are: %s", d.Name, deviceList(ok))
			}
		}
		return device{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND,
			"no Spotify device is called %q; the devices are: %s", named, deviceList(ok))
	}
	return device{}, jarvisbot.Errorf(jarvisbot.EINVALID,
		"%q fits several Spotify devices: %s; ask the owner which one", named, deviceList(part))
}

// deviceList names devices for a sentence: "Kitchen (Speaker), Phone (Smartphone)".
func deviceList(devs []device) string {
	var ns []string
	for _, d := range devs {
		if d.Type != "" {
			ns = append(ns, fmt.Sprintf("%s (%s)", d.Name, d.Type))
		} else {
			ns = append(ns, d.Name)
		}
	}
	return strings.Join(ns, ", ")
}

// on is " on NAME" for a result sentence, or nothing when the device is
// the active one, unnamed.
func on(name string) string {
	if name == "" {
		return ""
	}
	return " on " + name
}
