package assembly

import (
	"context"
	"fmt"
	"io"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/store"
)

// Dialer reaches a stored MCP server.
type Dialer interface {
	// Announce says a server is about to be reached. It is called from
	// Refresh's own goroutine, one server at a time, so that what it
	// prints never interleaves.
	Announce(s store.MCPServer)
	Dial(ctx context.Context, s store.MCPServer) (*mcphost.Conn, error)
}

// ToolCache is the store's record of the servers and their last tool lists.
type ToolCache interface {
	MCPServers(ctx context.Context) ([]store.MCPServer, error)
	SetMCPServerTools(ctx context.Context, name string, tools []byte) error
}

// Refresh reaches every enabled stored server at once and puts its live
// tools, instructions and title in c and its tool list in the cache (C7
// export). A server that does not answer is left out of c, with the reason
// on warn. Every connection is closed before Refresh returns.
func Refresh(ctx context.Context, c *catalog.Catalog, db ToolCache, d Dialer, warn io.Writer) error {
	list, err := db.MCPServers(ctx)
	if err != nil {
		return err
	}
	type live struct {
		s    store.MCPServer
		conn *mcphost.Conn
		err  error
	}
	results := make(chan live)
	n := 0
	for _, s := range list {
		if !s.Enabled {
			continue
		}
		n++
		d.Announce(s)
		go func() {
			cn, err := d.Dial(ctx, s)
			results <- live{s, cn, err}
		}()
	}
	var failed error
	for range n {
		r := <-results
		switch {
		case r.err != nil && failed == nil:
			fmt.Fprintf(warn, "jarvisbot: leaving %s out of the export: %v\n", r.s.Name, r.err)
			c.RemoveServer(r.s.Name)
		case r.err == nil && failed == nil:
			failed = takeLive(ctx, c, db, r.s.Name, r.conn)
			r.conn.Close()
		case r.err == nil:
			r.conn.Close() // a server answered after another step failed
		}
	}
	return failed
}

// takeLive puts a live server's tools, instructions and title in c and
// its tool list in the cache.
func takeLive(ctx context.Context, c *catalog.Catalog, db ToolCache, name string, conn *mcphost.Conn) error {
	tools := conn.Tools()
	if err := c.SetTools(name, tools, true); err != nil {
		return err
	}
	err := c.UpdateServer(name, func(srv *catalog.Server) {
		srv.Instructions = conn.Instructions
		if srv.Title == "" {
			srv.Title = conn.Info.Title
		}
	})
	if err != nil {
		return err
	}
	if err := db.SetMCPServerTools(ctx, name, mcphost.ToolsJSON(tools)); err != nil {
		return err
	}
	// A cache that keeps instructions too lets the derived card read them
	// the next time the server is not running.
	if ic, ok := db.(store.MCPInstructions); ok {
		return ic.SetMCPServerInstructions(ctx, name, conn.Instructions)
	}
	return nil
}
