-- Files people upload into a conversation for its tools (read_upload, and
-- optionally a file under uploads.dir, whose path is kept). The type was
-- read from the bytes. Deleting the conversation deletes its uploads.
CREATE TABLE uploads (
	id              TEXT PRIMARY KEY,
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	user_id         TEXT NOT NULL DEFAULT '',
	name            TEXT NOT NULL,
	mime_type       TEXT NOT NULL,
	size            INTEGER NOT NULL,
	sha256          TEXT NOT NULL,
	path            TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	data            BLOB NOT NULL
) STRICT;
CREATE INDEX uploads_by_conversation ON uploads (conversation_id, created_at);
