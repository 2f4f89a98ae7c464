-- Configuration entries (MCP servers, OpenAPI services) that admins add at
-- run time. body is the entry with its secret values replaced (what is
-- shown); sealed is the whole entry encrypted by the application, base64.
CREATE TABLE config_entries (
	kind       TEXT NOT NULL,
	name       TEXT NOT NULL,
	body       TEXT NOT NULL,
	sealed     TEXT NOT NULL,
	updated_by TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	version    INTEGER NOT NULL,
	PRIMARY KEY (kind, name)
) STRICT;
