-- The keyring entries jarvisbot made for a server (names, never values).
ALTER TABLE mcp_servers ADD COLUMN secrets TEXT NOT NULL DEFAULT '[]' CHECK (secrets::jsonb IS NOT NULL);
