-- Web UI sign-in sessions, shared by every replica so that a session ended
-- or expired on one is refused on all. id_hash is the SHA-256 (hex) of the
-- cookie value: a leaked database does not leak live sessions. Idle expiry
-- is last_seen_at plus the configured idle time; expires_at is absolute.
CREATE TABLE web_sessions (
	id_hash      TEXT PRIMARY KEY,
	user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created_at   INTEGER NOT NULL,
	last_seen_at INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX web_sessions_user ON web_sessions (user_id);
