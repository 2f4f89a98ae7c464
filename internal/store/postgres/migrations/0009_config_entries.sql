-- Configuration entries (MCP servers, OpenAPI services) that admins add at
-- run time, shared by every replica. body is the entry with its secret
-- values replaced (what is shown); sealed is the whole entry encrypted by
-- the application, base64.
CREATE TABLE config_entries (
	kind       text NOT NULL,
	name       text NOT NULL,
	body       text NOT NULL,
	sealed     text NOT NULL,
	updated_by text NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	version    bigint NOT NULL,
	PRIMARY KEY (kind, name)
);
