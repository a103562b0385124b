-- Which process carried out a decided request (ST2): replicas sharing one
-- store claim a decision before acting on it, so the turn waiting on one
-- replica and a replica that thinks the request orphaned never both run
-- the tool. '' until claimed.
ALTER TABLE approvals ADD COLUMN carried_by TEXT NOT NULL DEFAULT '';
