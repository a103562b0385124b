// Package app is jarvisbot's application layer: the running service and
// the use cases every door calls. The command line (cmd/jarvisbot), the
// dashboard (web) and the MCP surface for other apps (mcp/backend) each
// turn their input into a call here and the result into text, HTML or
// JSON; none of them calls another, and none reads another's output.
//
// What it holds:
//   - Env, Installation: what the process gives the service, and one
//     installation's config and store as the use cases see them, in a
//     one-off command or inside serve.
//   - Service and Session: the store, the live catalog with its MCP
//     sessions, the approvals engine, the agent runtime with its runner
//     registry and model choice, the apps' job queue, pause state and
//     sign-in renewal; the session adds the desk and the channels, and
//     starts, serves and stops them in order (X4).
//   - the use cases, one file per domain: plugins, MCP servers, skills,
//     agents, approvals, the schedule, pause and resume, routing, export
//     and import.
//   - assembly (the catalog from every source) and route (explaining a
//     turn), below it.
//
// SPEC ids it serves: A1–A3, C1, C6–C7, M1–M5, P2–P6, S2–S6, SC1, CH2,
// ST1–ST2, W1, X3–X5 (and "Top-level layout").
package app
