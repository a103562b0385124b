package desk

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"

	"github.com/jarvisbot/jarvisbot/channels"
)

// Owners (CH1): only the owner is served. The owners are configured by
// user id, or the first to send a platform's pairing code becomes its
// owner; anyone else gets one polite refusal.

// loadOwners takes the configured and the paired owners, and gives each
// platform that has none a pairing code.
func (d *Desk) loadOwners(ctx context.Context) error {
	for _, o := range d.opt.Owners {
		d.owners[o] = true
	}
	paired, err := d.opt.Store.Owners(ctx)
	if err != nil {
		return err
	}
	for _, o := range paired {
		d.owners[o] = true
	}
	for name := range d.channels {
		if name == "console" || d.hasOwner(name) {
			continue
		}
		code, err := pairingCode()
		if err != nil {
			return err
		}
		d.codes[name] = code
		// The log is the owner's console: no one else sees this line.
		d.log.Warn("no owner is set for this channel: send /pair CODE to the bot from your account to become its owner, or list your user id in the config", "channel", name, "code", code)
	}
	return nil
}

func (d *Desk) hasOwner(platform string) bool {
	for o := range d.owners {
		if strings.HasPrefix(o, platform+":") {
			return true
		}
	}
	return false
}

// PairingCode returns the code a platform waits for, or "".
func (d *Desk) PairingCode(platform string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.codes[platform]
}

func pairingCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// isOwner decides whether a sender is served; the console always is.
func (d *Desk) isOwner(user string) bool {
	if platform(user) == "console" {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.owners[user]
}

// stranger answers a sender who is not the owner: the pairing code makes
// the first contact the owner; anyone else gets one polite refusal.
func (d *Desk) stranger(ctx context.Context, m channels.Message, text string) {
	p := platform(m.User)
	d.mu.Lock()
	code := d.codes[p]
	if code != "" && text == "/pair "+code {
		delete(d.codes, p)
		d.owners[m.User] = true
		d.mu.Unlock()
		if err := d.opt.Store.AddOwner(ctx, m.User); err != nil {
			d.log.Error("saving the paired owner", "err", err)
		}
		d.log.Info("owner paired", "user", m.User)
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "Paired: you are the owner of this jarvisbot now. Send /help to see what I can do."})
		return
	}
	already := d.refused[m.User]
	d.refused[m.User] = true
	d.mu.Unlock()
	if !already {
		d.send(ctx, channels.Outgoing{Chat: m.Chat, Text: "Sorry, this is a private assistant; I only answer my owner."})
	}
}

// IsOwner reports whether a user is an owner (configured or paired): with
// no approvers listed, the owners decide.
func (d *Desk) IsOwner(user string) bool { return d.isOwner(user) }
