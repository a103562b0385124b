-- Which process carried out a decided request (ST2); '' until claimed.
ALTER TABLE approvals ADD COLUMN carried_by TEXT NOT NULL DEFAULT '';
