-- Users' own credentials for per-user upstreams (credentials: perUser).
-- sealed is the credential encrypted by the application (bound to the user
-- and the server), base64; the store never holds it in clear.
CREATE TABLE user_credentials (
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	server     TEXT NOT NULL,
	sealed     TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (user_id, server)
) STRICT;
