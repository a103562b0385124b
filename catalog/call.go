package catalog

import "encoding/json"

// Call is one call of a capability as the agent runtime hands it to the
// runner of its kind, once every check has passed: offered this turn, not
// on the never-list, arguments valid, tier satisfied (C2). The type lives
// here, below the runtime, so that each tool source (mcphost, clitool, the
// builtins) runs calls without importing the runtime.
type Call struct {
	Cap  *Capability
	Args json.RawMessage
	// Agent and Chat say who asked: a runner may serve each agent its own
	// data (builtin:skills reads and writes the agent's own folder).
	Agent string
	Chat  string
}

// Output is what a tool said. IsError is the tool's own report that it
// failed (an MCP result marked as an error, a program's non-zero exit):
// the model reads Text and may try otherwise. A call that did not happen or
// did not finish is an error from the runner instead.
type Output struct {
	Text    string
	IsError bool
	// Services names services (MCP servers, or the store plugins they
	// belong to) that the call asked for: their tools join the turn from
	// the next model call on, as far as the agent may have them (C8), and
	// the runtime adds to Text what came of it.
	Services []string
	// Skills names the skills whose instructions the call returned (the
	// skills tool's use): the model asked for them by name (S3), and a
	// turn that then uses one teaches the skill scorer its words (C9).
	Skills []string
}

// Description says in the owner's words what one call will do, for the
// approval request the owner decides on, often on a phone (CH2): What is
// one short sentence ("Send a mail", "Cancel the event Dentist"), Lines
// are the arguments that matter, each under a label ("To", "Subject",
// "Text"). Values are given whole: whoever shows them bounds them.
type Description struct {
	What  string
	Lines []Line
}

// Line is one labelled value of a Description.
type Line struct {
	Label string
	Value string
}
