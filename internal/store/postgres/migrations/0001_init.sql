-- Switchboard schema, version 1 (the same tables as the sqlite dialect's).
-- JSON is kept as text, not jsonb, so that it round-trips unchanged; tool
-- arguments are bytea because they are kept as the model sent them, NUL
-- bytes and invalid UTF-8 included.

CREATE TABLE conversations (
	id         text PRIMARY KEY,
	title      text NOT NULL DEFAULT '',
	agent      text NOT NULL DEFAULT '',
	user_name  text NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	-- last_seq is the Seq of the newest message; appends bump it, which also
	-- serialises concurrent appenders on this row.
	last_seq   bigint NOT NULL DEFAULT 0
);
CREATE INDEX conversations_by_user ON conversations (user_name, updated_at DESC, id DESC);

CREATE TABLE messages (
	id              text PRIMARY KEY,
	conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	seq             bigint NOT NULL,
	role            text NOT NULL,
	content         text NOT NULL DEFAULT '',
	tool_calls      text NOT NULL DEFAULT '',
	tool_call_id    text NOT NULL DEFAULT '',
	tool_name       text NOT NULL DEFAULT '',
	is_error        boolean NOT NULL DEFAULT false,
	agent           text NOT NULL DEFAULT '',
	run_id          text NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL,
	UNIQUE (conversation_id, seq)
);

CREATE TABLE agents (
	name        text PRIMARY KEY,
	description text NOT NULL DEFAULT '',
	model       text NOT NULL DEFAULT '',
	prompt      text NOT NULL DEFAULT '',
	servers     text, -- JSON array; NULL means every server
	router      text NOT NULL DEFAULT '',
	source      text NOT NULL,
	created_at  timestamptz NOT NULL,
	updated_at  timestamptz NOT NULL,
	version     bigint NOT NULL
);

CREATE TABLE approvals (
	id              text PRIMARY KEY,
	conversation_id text REFERENCES conversations (id) ON DELETE CASCADE,
	run_id          text NOT NULL DEFAULT '',
	call_id         text NOT NULL DEFAULT '',
	tool            text NOT NULL,
	server          text NOT NULL DEFAULT '',
	arguments       bytea NOT NULL DEFAULT '',
	state           text NOT NULL,
	scope           text NOT NULL DEFAULT '',
	reason          text NOT NULL DEFAULT '',
	decided_by      text NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL,
	expires_at      timestamptz,
	decided_at      timestamptz
);
CREATE INDEX approvals_by_state ON approvals (state, created_at);
CREATE INDEX approvals_by_conversation ON approvals (conversation_id);

CREATE TABLE grants (
	conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	tool            text NOT NULL,
	approval_id     text NOT NULL DEFAULT '',
	granted_by      text NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL,
	PRIMARY KEY (conversation_id, tool)
);

-- usage and audit have no foreign keys: they outlive deleted conversations.
CREATE TABLE usage (
	run_id          text PRIMARY KEY,
	conversation_id text NOT NULL DEFAULT '',
	agent           text NOT NULL DEFAULT '',
	model           text NOT NULL DEFAULT '',
	input_tokens    bigint NOT NULL DEFAULT 0,
	output_tokens   bigint NOT NULL DEFAULT 0,
	router          text NOT NULL DEFAULT '',
	started_at      timestamptz,
	finished_at     timestamptz
);
CREATE INDEX usage_by_conversation ON usage (conversation_id);

CREATE TABLE audit (
	id              text PRIMARY KEY,
	time            timestamptz NOT NULL,
	user_name       text NOT NULL DEFAULT '',
	conversation_id text NOT NULL DEFAULT '',
	agent           text NOT NULL DEFAULT '',
	run_id          text NOT NULL DEFAULT '',
	call_id         text NOT NULL DEFAULT '',
	tool            text NOT NULL,
	server          text NOT NULL DEFAULT '',
	arguments       bytea NOT NULL DEFAULT '',
	approval        text NOT NULL DEFAULT '',
	outcome         text NOT NULL,
	error           text NOT NULL DEFAULT '',
	duration_ms     bigint NOT NULL DEFAULT 0,
	result_bytes    bigint NOT NULL DEFAULT 0,
	finished_at     timestamptz,
	-- instance is the ID of the process that began the call, so that a
	-- restart can tell its own running calls from a dead process's.
	instance        text NOT NULL
);
CREATE INDEX audit_by_time ON audit (time DESC, id DESC);
CREATE INDEX audit_running ON audit (instance) WHERE outcome = 'running';

CREATE TABLE users (
	id          text PRIMARY KEY,
	name        text NOT NULL UNIQUE,
	key_hash    text NOT NULL UNIQUE,
	permissions text NOT NULL DEFAULT '[]',
	created_at  timestamptz NOT NULL,
	disabled    boolean NOT NULL DEFAULT false
);
