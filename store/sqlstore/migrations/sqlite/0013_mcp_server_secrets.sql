-- The keyring entries jarvisbot made for a server when it moved literal
-- credentials out of its settings (a JSON array of names, never values):
-- removing the server deletes those nothing else refers to.
ALTER TABLE mcp_servers ADD COLUMN secrets TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(secrets));
