package agents

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/store"
)

// delegatePrefix starts the capability id of a delegate's own tool (a
// CLI's shell, file or web tool) in approval requests and on the activity
// board: "delegate:AGENT/TOOL". The agent is part of the id because the
// approvals engine keeps "always for this tool" by capability id, and such
// a grant is the owner's trust in one agent's CLI, not in every agent's.
const delegatePrefix = "delegate:"

// DelegateToolID is the capability id under which a delegate's own tool is
// asked for, granted "always" and recorded: one per agent and tool.
func DelegateToolID(agent, tool string) string { return delegatePrefix + agent + "/" + tool }

// delegateTool splits a DelegateToolID.
func delegateTool(id string) (agent, tool string, ok bool) {
	rest, ok := strings.CutPrefix(id, delegatePrefix)
	if !ok {
		return "", "", false
	}
	agent, tool, ok = strings.Cut(rest, "/")
	return agent, tool, ok && agent != "" && tool != ""
}

// delegate runs a prepared turn on the model's delegate instead of the
// model loop (M5). The delegate gets what the loop would send (the system
// prompt, the history, the tools offered), and every call it makes comes
// back through runCalls, so checks, tiers, approvals, deadlines and the
// activity board are the loop's own. The delegate's answer is stored like a
// model's, so the history reads the same whoever answered.
func (r *Runtime) delegate(ctx context.Context, st *turnState) (Result, error) {
	t, awaiting := r.delegateTurn(ctx, st)
	began := time.Now()
	res, err := st.model.Delegate.Turn(ctx, t)
	// A delegate's whole turn is one call to its CLI: recorded as one.
	r.recordCall(ctx, st, llm.Response{Usage: res.Usage, Provider: res.Provider, Model: res.Model}, err, time.Since(began))
	st.mu.Lock()
	out := st.res
	out.Calls = slices.Clone(st.res.Calls)
	st.mu.Unlock()
	out.Steps = 1
	if *awaiting != nil {
		// A call waited for the owner when the turn stopped: the pending
		// request carries it, and the decision continues it (Continue).
		return out, fmt.Errorf("%w: %w", ErrAwaitingApproval, *awaiting)
	}
	if err != nil {
		r.log().Warn("delegate turn failed", "agent", st.agent, "chat", st.in.Chat, "err", err)
		if ctx.Err() != nil {
			return out, fmt.Errorf("the turn of agent %s stopped before its CLI answered: %w", st.agent, err)
		}
		return out, jarvisbot.Errorf(cmp.Or(codeOf(err), jarvisbot.EUNAVAILABLE),
			"agent %s's CLI could not answer: %w; the message is kept, so send it again once the CLI works (`agents show %s` says what it found)", st.agent, err, st.agent)
	}
	if err := r.save(ctx, st.in, llm.Message{Role: llm.RoleAssistant, Text: res.Text}); err != nil {
		return out, err
	}
	out.Text = res.Text
	return out, nil
}

// codeOf is the code of the first *jarvisbot.Error in err's chain, "" when
// there is none.
func codeOf(err error) jarvisbot.Code {
	var e *jarvisbot.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// withDocuments is a message's text with the text of the documents sent
// with it before it (CH4): a CLI reads one prompt, and a document's 60 KB
// bound fits its argument. Images a CLI cannot take never get here.
func withDocuments(m llm.Message) string {
	var b strings.Builder
	for _, a := range m.Attachments {
		if a.Kind == llm.AttachDocument {
			fmt.Fprintf(&b, "<file name=%q>\n%s\n</file>\n\n", a.Name, a.Text)
		}
	}
	return b.String() + m.Text
}

// delegateTurn builds the turn a delegate sees. awaiting is set when a
// call or an approval was left waiting for the owner as the turn stopped.
func (r *Runtime) delegateTurn(ctx context.Context, st *turnState) (DelegateTurn, *error) {
	awaiting := new(error)
	text, history := st.in.Text, st.req.Messages
	// The history ends with what this turn answers: the owner's message,
	// or the note that tells of a decision taken after a restart (late).
	if n := len(history); n > 0 && history[n-1].Role == llm.RoleUser && history[n-1].Text != "" && len(history[n-1].ToolResults) == 0 {
		text, history = withDocuments(history[n-1]), history[:n-1]
	}
	system := st.req.System
	if st.req.SystemExtra != "" {
		system += "\n\n" + st.req.SystemExtra
	}
	session := ""
	if r.Sessions != nil {
		var err error
		if session, err = r.Sessions.DelegateSession(ctx, st.agent, st.in.Chat); err != nil {
			// A session that cannot be read costs the CLI its memory of
			// the chat for this turn, not the turn: the history is sent.
			r.log().Warn("reading the CLI session of a chat; this turn starts a new one", "agent", st.agent, "chat", st.in.Chat, "err", err)
		}
	}
	calls := 0 // numbers the calls' ids; guarded by st.mu
	return DelegateTurn{
		Agent:   st.agent,
		Chat:    st.in.Chat,
		Text:    text,
		System:  system,
		History: slices.Clone(history),
		Tools:   slices.Clone(st.req.Tools),
		Call: func(ctx context.Context, wire string, input json.RawMessage) llm.ToolResult {
			st.mu.Lock()
			calls++
			id := "delegate-" + strconv.Itoa(calls)
			st.mu.Unlock()
			results, records := r.runCalls(ctx, st, []llm.ToolCall{{ID: id, Name: wire, Input: input}})
			st.mu.Lock()
			defer st.mu.Unlock()
			if records[0].Outcome == outcomeAwaiting && *awaiting == nil {
				*awaiting = cmp.Or(ctx.Err(), approvals.ErrClosed)
			}
			st.res.Calls = append(st.res.Calls, records...)
			return results[0]
		},
		Approve: func(ctx context.Context, tool string, input json.RawMessage) (bool, error) {
			ok, outcome, err := r.approveOwnTool(ctx, st.in, tool, input)
			st.mu.Lock()
			defer st.mu.Unlock()
			if outcome == outcomeAwaiting && *awaiting == nil {
				*awaiting = cmp.Or(ctx.Err(), approvals.ErrClosed)
			}
			rec := CallRecord{Tool: DelegateToolID(st.agent, tool), Tier: catalog.TierAsk, Outcome: outcome}
			st.res.Calls = append(st.res.Calls, rec)
			r.observeCalls(st.agent, []CallRecord{rec})
			return ok, err
		},
		Session: session,
		SetSession: func(ctx context.Context, id string) error {
			if r.Sessions == nil {
				return nil // nothing is kept: the next turn starts afresh, with the history
			}
			return r.Sessions.SetDelegateSession(ctx, st.agent, st.in.Chat, id)
		},
	}, awaiting
}

// approveOwnTool asks the owner whether an agent's CLI may use one of its
// own tools, through the approvals engine as for an ask-tier tool: the same
// buttons, expiry, and "always for this tool", kept per agent
// (DelegateToolID). The decision goes on the activity board; what the tool
// then does is the CLI's to run.
func (r *Runtime) approveOwnTool(ctx context.Context, in Input, tool string, input json.RawMessage) (bool, string, error) {
	id := DelegateToolID(in.Agent, tool)
	if r.Approvals == nil {
		return false, "refused: no approvals", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s needs the owner's approval, and no approvals are possible here", id)
	}
	what := RenderSummary(Generic(fmt.Sprintf("Let the CLI of agent %s use its own tool %s", in.Agent, tool), input), "")
	a, err := r.Approvals.Ask(ctx, approvals.Request{Tool: id, Summary: what, Args: input, Agent: in.Agent, Chat: in.Chat, Apps: in.apps})
	if err == nil && a.State == store.ApprovalPending {
		req := a.ID
		if a, err = r.Approvals.Wait(ctx, req); err != nil && (ctx.Err() != nil || errors.Is(err, approvals.ErrClosed)) {
			return false, outcomeAwaiting, fmt.Errorf("%w: request %s", ErrAwaitingApproval, req)
		}
	}
	if err != nil {
		return false, "error: " + err.Error(), fmt.Errorf("asking the owner whether agent %s's CLI may use %s: %w", in.Agent, tool, err)
	}
	outcome := "denied"
	switch a.State {
	case store.ApprovalApproved:
		outcome = "approved"
	case store.ApprovalExpired:
		outcome = "expired"
	}
	r.record(ctx, in, store.Activity{At: r.now(), Agent: in.Agent, Tool: id, Tier: string(catalog.TierAsk), Args: argSummary(input), Outcome: outcome})
	return outcome == "approved", outcome, nil
}

// lateOwnTool tells the agent of a decision on its CLI's own tool that came
// after the turn that asked had stopped (a restart): the CLI that asked is
// gone, so nothing runs; the agent tells the owner, who can ask again (an
// "always" grant holds from now on).
func (r *Runtime) lateOwnTool(ctx context.Context, st *turnState, a store.Approval) (Result, error) {
	_, tool, _ := delegateTool(a.Tool)
	r.record(ctx, st.in, store.Activity{At: r.now(), Agent: a.Agent, Tool: a.Tool, Tier: string(catalog.TierAsk), Args: argSummary(a.Args), Outcome: string(a.State) + " after its turn stopped"})
	note := llm.Message{Role: llm.RoleUser, Text: fmt.Sprintf("[jarvisbot] %s has now decided (%s) on an earlier request of yours to use your own tool %s: %s. The turn that asked stopped before the decision, so nothing ran. Tell the owner briefly, and offer to do it again.",
		decider(a), a.State, tool, a.Summary)}
	if err := r.save(ctx, st.in, note); err != nil {
		return st.res, err
	}
	st.req.Messages = append(st.req.Messages, note)
	return r.answer(ctx, st)
}
