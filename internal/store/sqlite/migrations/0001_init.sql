-- Switchboard schema, version 1. Times are INTEGER microseconds since the
-- Unix epoch (UTC); JSON is TEXT. STRICT tables make SQLite check types.

CREATE TABLE conversations (
	id         TEXT PRIMARY KEY,
	title      TEXT NOT NULL DEFAULT '',
	agent      TEXT NOT NULL DEFAULT '',
	user_name  TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	-- last_seq is the Seq of the newest message; appends bump it, which also
	-- serialises concurrent appenders on this row.
	last_seq   INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX conversations_by_user ON conversations (user_name, updated_at DESC, id DESC);

CREATE TABLE messages (
	id              TEXT PRIMARY KEY,
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	seq             INTEGER NOT NULL,
	role            TEXT NOT NULL,
	content         TEXT NOT NULL DEFAULT '',
	tool_calls      TEXT NOT NULL DEFAULT '',
	tool_call_id    TEXT NOT NULL DEFAULT '',
	tool_name       TEXT NOT NULL DEFAULT '',
	is_error        INTEGER NOT NULL DEFAULT 0,
	agent           TEXT NOT NULL DEFAULT '',
	run_id          TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	UNIQUE (conversation_id, seq)
) STRICT;

CREATE TABLE agents (
	name        TEXT PRIMARY KEY,
	description TEXT NOT NULL DEFAULT '',
	model       TEXT NOT NULL DEFAULT '',
	prompt      TEXT NOT NULL DEFAULT '',
	servers     TEXT, -- JSON array; NULL means every server
	router      TEXT NOT NULL DEFAULT '',
	source      TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	version     INTEGER NOT NULL
) STRICT;

CREATE TABLE approvals (
	id              TEXT PRIMARY KEY,
	conversation_id TEXT REFERENCES conversations (id) ON DELETE CASCADE,
	run_id          TEXT NOT NULL DEFAULT '',
	call_id         TEXT NOT NULL DEFAULT '',
	tool            TEXT NOT NULL,
	server          TEXT NOT NULL DEFAULT '',
	arguments       TEXT NOT NULL DEFAULT '',
	state           TEXT NOT NULL,
	scope           TEXT NOT NULL DEFAULT '',
	reason          TEXT NOT NULL DEFAULT '',
	decided_by      TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	expires_at      INTEGER,
	decided_at      INTEGER
) STRICT;
CREATE INDEX approvals_by_state ON approvals (state, created_at);
CREATE INDEX approvals_by_conversation ON approvals (conversation_id);

CREATE TABLE grants (
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	tool            TEXT NOT NULL,
	approval_id     TEXT NOT NULL DEFAULT '',
	granted_by      TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	PRIMARY KEY (conversation_id, tool)
) STRICT;

-- usage and audit have no foreign keys: they outlive deleted conversations.
CREATE TABLE usage (
	run_id          TEXT PRIMARY KEY,
	conversation_id TEXT NOT NULL DEFAULT '',
	agent           TEXT NOT NULL DEFAULT '',
	model           TEXT NOT NULL DEFAULT '',
	input_tokens    INTEGER NOT NULL DEFAULT 0,
	output_tokens   INTEGER NOT NULL DEFAULT 0,
	router          TEXT NOT NULL DEFAULT '',
	started_at      INTEGER,
	finished_at     INTEGER
) STRICT;
CREATE INDEX usage_by_conversation ON usage (conversation_id);

CREATE TABLE audit (
	id              TEXT PRIMARY KEY,
	time            INTEGER NOT NULL,
	user_name       TEXT NOT NULL DEFAULT '',
	conversation_id TEXT NOT NULL DEFAULT '',
	agent           TEXT NOT NULL DEFAULT '',
	run_id          TEXT NOT NULL DEFAULT '',
	call_id         TEXT NOT NULL DEFAULT '',
	tool            TEXT NOT NULL,
	server          TEXT NOT NULL DEFAULT '',
	arguments       TEXT NOT NULL DEFAULT '',
	approval        TEXT NOT NULL DEFAULT '',
	outcome         TEXT NOT NULL,
	error           TEXT NOT NULL DEFAULT '',
	duration_ms     INTEGER NOT NULL DEFAULT 0,
	result_bytes    INTEGER NOT NULL DEFAULT 0,
	finished_at     INTEGER,
	-- instance is the ID of the process that began the call, so that a
	-- restart can tell its own running calls from a dead process's.
	instance        TEXT NOT NULL
) STRICT;
CREATE INDEX audit_by_time ON audit (time DESC, id DESC);
CREATE INDEX audit_running ON audit (instance) WHERE outcome = 'running';

CREATE TABLE users (
	id          TEXT PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,
	key_hash    TEXT NOT NULL UNIQUE,
	permissions TEXT NOT NULL DEFAULT '[]',
	created_at  INTEGER NOT NULL,
	disabled    INTEGER NOT NULL DEFAULT 0
) STRICT;
