package store

import (
	"context"
	"time"
)

// JobState is where a job posted by an app stands (M4).
type JobState string

// The states of a job. Queued, running and waiting_approval are
// unfinished: a restart picks them up again.
const (
	JobQueued          JobState = "queued"
	JobRunning         JobState = "running"
	JobWaitingApproval JobState = "waiting_approval"
	JobDone            JobState = "done"
	JobFailed          JobState = "failed"
	JobCancelled       JobState = "cancelled"
)

// Finished reports whether a job in this state will not run again by
// itself (done, failed or cancelled).
func (s JobState) Finished() bool {
	return s == JobDone || s == JobFailed || s == JobCancelled
}

// Job is a piece of work an app posted without naming who does it, or one
// agent_chat turn pinned to an agent (M4).
type Job struct {
	ID    string // short and unique, set by the store
	App   string // the app that posted it
	Title string
	Text  string
	// Agent does the job; Why says, in one sentence, why it was chosen.
	Agent, Why string
	// Chat is the conversation the job's turns run in: "job:ID" for a
	// posted job (set by the store when empty), "app:APP:AGENT" for
	// agent_chat, so each agent's conversation with an app is its own.
	Chat  string
	State JobState
	// Result is the agent's reply; Error why the job failed; Approval the
	// pending approval request its turn waits for.
	Result, Error, Approval string
	// Tools are the capability ids the job's turn called.
	Tools    []string
	Attempts int
	// CreatedAt is set by the store; StartedAt and FinishedAt by whoever
	// runs the job.
	CreatedAt, StartedAt, FinishedAt time.Time
}

// Jobs keeps the jobs apps post.
type Jobs interface {
	// AddJob stores a new job in state queued with a fresh ID (and Chat
	// "job:ID" when none is given) and returns it as stored.
	AddJob(ctx context.Context, j Job) (Job, error)
	// Job returns a job, or ENOTFOUND.
	Job(ctx context.Context, id string) (Job, error)
	// Jobs returns the jobs of an app ("" for every app), newest first.
	Jobs(ctx context.Context, app string, limit int) ([]Job, error)
	// UpdateJob changes a job in one transaction: change is called with
	// the stored job and what it leaves is stored (the ID, App and
	// CreatedAt stay). change refuses by returning an error: nothing is
	// stored and UpdateJob returns it. ENOTFOUND when there is no such job.
	UpdateJob(ctx context.Context, id string, change func(*Job) error) (Job, error)
	// UnfinishedJobs returns the queued, running and waiting jobs, oldest
	// first, for a restart to pick up.
	UnfinishedJobs(ctx context.Context) ([]Job, error)
}

// MaxNoteLen bounds a note, in characters: agent_message refuses a longer
// one, and a turn shows at most this much of any note (X5).
const MaxNoteLen = 4000

// Note is a message left for an agent, read at its next turn (M4,
// agent_message).
type Note struct {
	ID        int64
	Agent     string
	From      string // who left it: an app's name
	Text      string
	CreatedAt time.Time // set by the store
}

// Notes keeps notes for agents.
type Notes interface {
	// AddNote stores an unread note and returns it with its ID.
	AddNote(ctx context.Context, n Note) (Note, error)
	// TakeNotes returns an agent's unread notes, oldest first, and marks
	// them read in the same transaction: each note is taken once.
	TakeNotes(ctx context.Context, agent string) ([]Note, error)
}
