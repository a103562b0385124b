package mcphost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/jarvisbot/jarvisbot"
)

// Result is a tool's answer as text for the model.
type Result struct {
	Text    string
	IsError bool // the tool said it failed; Text says how
	// Cut is set when Text was shortened to the cap; Size is the full size.
	Cut  bool
	Size int
}

// Call runs one tool under the server's deadline (and ctx's, whichever
// comes first). A timeout, a crash or a broken answer is an error written
// for the model to read; a tool that reports failure is a Result with
// IsError. maxResult caps the text (0 means DefaultMaxResult).
func (cn *Conn) Call(ctx context.Context, tool string, args json.RawMessage, maxResult int) (Result, error) {
	res, err := cn.call(ctx, tool, args, maxResult)
	return res, cn.secrets.err(err)
}

func (cn *Conn) call(ctx context.Context, tool string, args json.RawMessage, maxResult int) (Result, error) {
	name := cn.srv.Name
	var arguments map[string]any
	if t := bytes.TrimSpace(args); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &arguments); err != nil {
			return Result{}, jarvisbot.Errorf(jarvisbot.EINVALID, "arguments for %s/%s must be one JSON object: %w", name, tool, err)
		}
	}
	select {
	case <-cn.done:
		return Result{}, cn.Err()
	default:
	}
	limit := cn.srv.callTimeout()
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// A session that ends during the call (a crash, or another call found
	// the server hung) ends the call at once, not at its deadline.
	go func() {
		select {
		case <-cn.done:
			cancel()
		case <-callCtx.Done():
		}
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = arguments
	res, err := within(callCtx, func() (*mcp.CallToolResult, error) { return cn.c.CallTool(callCtx, req) })
	if err != nil {
		select {
		case <-cn.done: // the server went away during the call
			return Result{}, cn.Err()
		default:
		}
		switch {
		case ctx.Err() != nil: // the turn's own deadline or cancel
			return Result{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "tool %s/%s was cancelled", name, tool)
		case errors.Is(err, context.DeadlineExceeded) && callCtx.Err() != nil:
			// A slow tool and a hung server look alike here; a ping with
			// a short deadline tells them apart (M3).
			if perr := cn.probe(); perr != nil {
				down := jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s stopped answering: tool %s got no answer within %s, and a ping none within %s; its tools are off until it answers again", name, tool, limit, cn.pingLimit())
				cn.hung(down)
				return Result{}, down
			}
			return Result{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "tool %s/%s did not answer within %s; the call was cancelled", name, tool, limit)
		case errors.Is(err, transport.ErrTransportClosed):
			down := cn.explain(ctx, "tools/call "+tool, err)
			cn.markDown(down)
			return Result{}, down
		}
		return Result{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "tool %s/%s failed: %w", name, tool, err)
	}
	if maxResult <= 0 {
		maxResult = DefaultMaxResult
	}
	return render(res, maxResult), nil
}

// within returns f's answer, or ctx's error as soon as ctx ends. The stdio
// transport writes a request to the server's stdin without heeding ctx; a
// server that stopped reading lets that write block once the pipe is full,
// and a deadline must still be a deadline. The abandoned f ends when the
// session does (the pipe breaks).
func within[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type answer struct {
		v   T
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		v, err := f()
		ch <- answer{v, err}
	}()
	select {
	case a := <-ch:
		return a.v, a.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// render turns a tool result into text: text parts as they are, other
// parts named by kind and size, structured content as JSON when there is
// nothing else; cut to max bytes on a UTF-8 boundary, with a note.
func render(res *mcp.CallToolResult, max int) Result {
	var b strings.Builder
	for i, c := range res.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case mcp.TextContent:
			b.WriteString(c.Text)
		case mcp.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", c.MIMEType, len(c.Data)*3/4)
		case mcp.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", c.MIMEType, len(c.Data)*3/4)
		case mcp.ResourceLink:
			fmt.Fprintf(&b, "[resource %s: %s]", c.Name, c.URI)
		case mcp.EmbeddedResource:
			switch r := c.Resource.(type) {
			case mcp.TextResourceContents:
				fmt.Fprintf(&b, "[resource %s]\n%s", r.URI, r.Text)
			case mcp.BlobResourceContents:
				fmt.Fprintf(&b, "[resource %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)*3/4)
			default:
				b.WriteString("[resource]")
			}
		default:
			if j, err := json.Marshal(c); err == nil {
				b.Write(j)
			}
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if j, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(j)
		}
	}
	out := Result{Text: b.String(), IsError: res.IsError, Size: b.Len()}
	if len(out.Text) > max {
		cut := max
		for cut > 0 && !utf8Start(out.Text[cut]) {
			cut--
		}
		out.Text = out.Text[:cut] + fmt.Sprintf("\n[result cut: the first %s of %s are shown]", size(cut), size(out.Size))
		out.Cut = true
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
