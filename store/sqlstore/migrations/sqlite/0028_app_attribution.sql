-- The apps whose words were in the turn that raised a request (X5), comma
-- separated: none of them may decide it. And the app whose job or chat an
-- activity entry served.
ALTER TABLE approvals ADD COLUMN apps TEXT NOT NULL DEFAULT '';
ALTER TABLE activity ADD COLUMN app TEXT NOT NULL DEFAULT '';
