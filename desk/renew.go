package desk

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot/channels"
)

// renewPrefix starts the data of a Renew button: "renew:PLUGIN".
const renewPrefix = "renew:"

// NeedsAttention tells the owner in chat that a plugin's sign-in expired
// or was revoked (P4): its tools are off for every agent until the owner
// renews it, which the button under the message starts.
func (d *Desk) NeedsAttention(ctx context.Context, chat, plugin, display string) {
	text := fmt.Sprintf("Your sign-in to %s expired or was revoked, so its tools are off for every agent until you renew it.", display)
	var buttons [][]channels.Button
	if d.opt.Renew != nil && len(renewPrefix+plugin) <= 64 {
		buttons = [][]channels.Button{{{Label: "Renew sign-in", Data: renewPrefix + plugin, Keys: []string{"renew"}}}}
	} else {
		text += " Renew it with: jarvisbot plugins signin " + plugin
	}
	d.send(ctx, channels.Outgoing{Chat: chat, Text: text, Buttons: buttons})
}

// renew answers a press of a Renew button: the owner gets the sign-in
// link in the chat, and a word when the sign-in is done.
func (d *Desk) renew(ctx context.Context, p channels.Press, plugin string, answer func(string)) {
	if !d.isOwner(p.User) {
		answer("Only the owner can renew a sign-in.")
		return
	}
	if d.opt.Renew == nil {
		answer("Renew it with: jarvisbot plugins signin " + plugin)
		return
	}
	link, wait, err := d.opt.Renew(ctx, plugin)
	if err != nil {
		answer("The sign-in could not start.")
		d.send(ctx, channels.Outgoing{Chat: p.Chat, Text: fmt.Sprintf("The sign-in to %s could not start: %v", plugin, err)})
		return
	}
	answer("Open the link I sent.")
	d.send(ctx, channels.Outgoing{Chat: p.Chat, Text: fmt.Sprintf("Open this link to sign in to %s again:\n\n%s", plugin, link)})
	// Not one of the turns Drain waits for: a sign-in the owner never
	// opens must not hold a shutdown; it ends with the desk.
	go func() {
		text := fmt.Sprintf("Signed in to %s again: its tools are back.", plugin)
		if err := wait(d.base); err != nil {
			if d.base.Err() != nil {
				return
			}
			text = fmt.Sprintf("The sign-in to %s did not complete: %v", plugin, err)
		}
		d.send(d.base, channels.Outgoing{Chat: p.Chat, Text: text})
	}()
}
