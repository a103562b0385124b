package backend

import (
	"context"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/jobs"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
	"github.com/jarvisbot/jarvisbot/store"
)

// JobStore is what QueueJobs reads of the store besides the queue.
type JobStore interface {
	store.Jobs
	AddNote(ctx context.Context, n store.Note) (store.Note, error)
}

// QueueJobs is the job queue (agents/jobs) as the surface needs it.
type QueueJobs struct {
	Queue *jobs.Queue
	Store JobStore
}

var _ Jobs = QueueJobs{}

// Counts are the queued and the running (or waiting) jobs.
func (q QueueJobs) Counts(ctx context.Context) (queued, running int, err error) {
	list, err := q.Store.UnfinishedJobs(ctx)
	for _, j := range list {
		if j.State == store.JobQueued {
			queued++
		} else {
			running++
		}
	}
	return queued, running, err
}

// AppOfChat names the app whose request a chat's turns answer.
func (q QueueJobs) AppOfChat(ctx context.Context, chat string) string {
	app, err := q.Queue.AppOf(ctx, chat)
	if err != nil {
		return ""
	}
	return app
}

// Post posts a job; the queue chooses its agent.
func (q QueueJobs) Post(ctx context.Context, app, title, text string) (surface.Job, error) {
	j, err := q.Queue.Post(ctx, app, title, text)
	return jobOf(j), err
}

// List lists an app's jobs, newest first.
func (q QueueJobs) List(ctx context.Context, app string, limit int) ([]surface.Job, error) {
	list, err := q.Store.Jobs(ctx, app, limit)
	out := make([]surface.Job, 0, len(list))
	for _, j := range list {
		out = append(out, jobOf(j))
	}
	return out, err
}

// Get is one job.
func (q QueueJobs) Get(ctx context.Context, id string) (surface.Job, error) {
	j, err := q.Store.Job(ctx, id)
	return jobOf(j), err
}

// Cancel cancels a queued or running job.
func (q QueueJobs) Cancel(ctx context.Context, id string) (surface.Job, error) {
	j, err := q.Queue.Cancel(ctx, id)
	return jobOf(j), err
}

// Retry queues a failed or cancelled job again.
func (q QueueJobs) Retry(ctx context.Context, id string) (surface.Job, error) {
	j, err := q.Queue.Retry(ctx, id)
	return jobOf(j), err
}

// Chat runs a turn of agent in its conversation with the app and says what
// it came to within timeout.
func (q QueueJobs) Chat(ctx context.Context, app, agent, text string, timeout time.Duration) (surface.ChatResult, error) {
	j, err := q.Queue.Chat(ctx, app, agent, text, timeout)
	if err != nil {
		return surface.ChatResult{}, err
	}
	switch j.State {
	case store.JobDone:
		return surface.ChatResult{Status: surface.ChatAnswered, Reply: j.Result, Tools: j.Tools, Job: j.ID}, nil
	case store.JobWaitingApproval:
		return surface.ChatResult{Status: surface.ChatWaitingApproval, Approval: j.Approval, Job: j.ID}, nil
	case store.JobFailed:
		return surface.ChatResult{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s could not answer: %s (job %s; job_retry tries again)", agent, j.Error, j.ID)
	case store.JobCancelled:
		return surface.ChatResult{}, jarvisbot.Errorf(jarvisbot.ECONFLICT, "the turn was cancelled (job %s)", j.ID)
	}
	return surface.ChatResult{Status: surface.ChatStillRunning, Job: j.ID}, nil
}

// Note leaves a note the agent reads at its next turn.
func (q QueueJobs) Note(ctx context.Context, app, agent, text string) error {
	if strings.TrimSpace(text) == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "the note is empty")
	}
	_, err := q.Store.AddNote(ctx, store.Note{Agent: agent, From: "app:" + app, Text: text})
	return err
}

func jobOf(j store.Job) surface.Job {
	return surface.Job{ID: j.ID, App: j.App, Title: j.Title, Text: j.Text, State: string(j.State), Agent: j.Agent, Why: j.Why,
		Result: j.Result, Error: j.Error, Approval: j.Approval, Created: j.CreatedAt, Finished: j.FinishedAt}
}
