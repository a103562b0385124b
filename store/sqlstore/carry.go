package sqlstore

import (
	"context"

	"github.com/jarvisbot/jarvisbot"
)

// CarryApproval implements store.Approvals: the UPDATE matches only a
// decided request nobody claimed yet, so of several processes exactly one
// gets true.
func (db *DB) CarryApproval(ctx context.Context, id, by string) (bool, error) {
	if by == "" {
		return false, jarvisbot.Errorf(jarvisbot.EINVALID, "carrying out approval request %s: no carrier named", id)
	}
	res, err := db.db.ExecContext(ctx, `UPDATE approvals SET carried_by = ? WHERE id = ? AND state <> 'pending' AND carried_by = ''`, by, id)
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "claiming approval request %s in %s: %w", id, db.path, err)
	}
	n, err := db.affected(res, "claiming approval request "+id)
	if err != nil {
		return false, err
	}
	return n == 1, nil
}
