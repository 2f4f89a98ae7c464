-- Users' own credentials for per-user upstreams (credentials: perUser),
-- shared by every replica. sealed is the credential encrypted by the
-- application (bound to the user and the server), base64; the store never
-- holds it in clear.
CREATE TABLE user_credentials (
	user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	server     text NOT NULL,
	sealed     text NOT NULL,
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (user_id, server)
);
