-- Files people upload into a conversation for its tools (read_upload, and
-- optionally a file under uploads.dir, whose path is kept). The type was
-- read from the bytes. Deleting the conversation deletes its uploads.
CREATE TABLE uploads (
	id              text PRIMARY KEY,
	conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	user_id         text NOT NULL DEFAULT '',
	name            text NOT NULL,
	mime_type       text NOT NULL,
	size            bigint NOT NULL,
	sha256          text NOT NULL,
	path            text NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL,
	data            bytea NOT NULL
);
CREATE INDEX uploads_by_conversation ON uploads (conversation_id, created_at);
