package store

import "context"

// MCPCards keeps the owner's usage cards of MCP servers (C5): the words
// that point at a server, edited on the dashboard, replacing the derived
// card. A card goes with its server when the server is removed.
type MCPCards interface {
	// MCPCards are the owner's cards by server name.
	MCPCards(ctx context.Context) (map[string][]string, error)
	// SetMCPCard keeps words as server's card; no words takes the card
	// back. A server that is not stored is an ENOTFOUND error.
	SetMCPCard(ctx context.Context, server string, words []string) error
}
