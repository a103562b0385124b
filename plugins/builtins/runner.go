package builtins

import (
	"context"
	"errors"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// Runner runs the built-in plugins' tool calls for the service (an
// agents.Runner for kind plugin). Each call finds the sign-in that serves
// its plugin now, so a renewed or newly shared sign-in takes effect
// without a restart.
type Runner struct {
	Env Env
	// Scopes returns a plugin's scopes, from its manifest.
	Scopes func(plugin string) []string
	// Attention hears that a plugin's sign-in expired or was revoked
	// (P4): the service takes its tools away and tells the owner.
	Attention func(ctx context.Context, plugin string, err error)
}

// Run runs one call.
func (r *Runner) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	plugin := c.Cap.Server
	if !Has(plugin) {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s is not a built-in plugin's tool", c.Cap.ID)
	}
	if r.Env.Signin == nil {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s cannot be used: the keyring that holds its sign-in cannot be opened (see jarvisbot's log)", plugin)
	}
	var scopes []string
	if r.Scopes != nil {
		scopes = r.Scopes(plugin)
	}
	grant, ok, err := r.Env.Grant(ctx, plugin, scopes)
	if err != nil {
		return catalog.Output{}, err
	}
	if !ok {
		err = jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%w: %s is not signed in; renew it with jarvisbot plugins signin %s", signin.ErrNeedsAttention, plugin, plugin)
		r.attention(ctx, plugin, err)
		return catalog.Output{}, err
	}
	out, err := native.NewRunner(map[string][]native.Tool{plugin: r.Env.Tools(plugin, grant)}).Run(ctx, c)
	if errors.Is(err, signin.ErrNeedsAttention) {
		r.attention(ctx, plugin, err)
	}
	return out, err
}

func (r *Runner) attention(ctx context.Context, plugin string, err error) {
	if r.Attention != nil {
		r.Attention(ctx, plugin, err)
	}
}

// Describe says what a call will do, for its approval request (CH2), in
// the tool's own words: with the sign-in that serves the plugin, so that a
// tool may name what an id points to; without one, from the arguments
// alone.
func (r *Runner) Describe(ctx context.Context, c catalog.Call) (catalog.Description, bool) {
	plugin := c.Cap.Server
	b, ok := plugins[plugin]
	if !ok {
		return catalog.Description{}, false
	}
	tools := b.tools(toolOptions{loc: r.Env.zone(), now: r.Env.Now})
	if r.Env.Signin != nil {
		var scopes []string
		if r.Scopes != nil {
			scopes = r.Scopes(plugin)
		}
		if grant, ok, err := r.Env.Grant(ctx, plugin, scopes); err == nil && ok {
			tools = r.Env.Tools(plugin, grant)
		}
	}
	return native.NewRunner(map[string][]native.Tool{plugin: tools}).Describe(ctx, c)
}
