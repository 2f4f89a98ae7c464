-- Authorizations users began with a per-user remote MCP server's own
-- authorization server (the web UI's Connect), kept until the browser comes
-- back to any replica, which takes the row once. state_hash is the SHA-256
-- of the OAuth state; sealed is the pending authorization encrypted by the
-- application (bound to the user, the server and the state), base64.
CREATE TABLE upstream_auth_states (
	state_hash text PRIMARY KEY,
	user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	server     text NOT NULL,
	sealed     text NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX upstream_auth_states_by_expiry ON upstream_auth_states (expires_at);
