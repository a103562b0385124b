package dispatch

// Queued counts the messages waiting on this desk for their turn, not
// those being answered: the queue depth an operator watches (issue 20).
// With a shared queue (replicas on PostgreSQL) messages wait in the
// store, not here, and this stays at zero.
func (d *Desk) Queued() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, q := range d.chats {
		n += len(q.msgs)
	}
	return n
}
