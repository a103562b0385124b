// Package procgroup runs a child process in a process group of its own, so
// that ending it ends everything it started: npx starts node, a shell
// script starts its commands, and none of them may outlive the server or
// the tool call that started them. MCP stdio servers (mcphost) and CLI
// tools (clitool) both start their children through it.
//
// It serves M3 and X4: children stop with their parent.
package procgroup
