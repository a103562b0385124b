package desk

// Queued counts the messages waiting on this desk for their turn, not
// those being answered: the queue depth an operator watches (issue 20).
// With a shared queue (replicas on PostgreSQL) they are the messages
// waiting in the store behind the turns this replica runs, in the chats
// it holds.
func (d *Desk) Queued() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, q := range d.chats {
		n += len(q.msgs) + q.behind
	}
	return n
}
