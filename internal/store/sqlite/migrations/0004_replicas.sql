-- Run events, and the columns that several replicas need (SQLite serves
-- one process, but both engines keep the same records).
--
-- approvals.instance is the process whose run waits on the approval.
ALTER TABLE approvals ADD COLUMN instance TEXT NOT NULL DEFAULT '';

-- runs and run_events keep each agent run's events, numbered from 1, so
-- that a client re-attaches to a run's stream and resumes after the last
-- event it saw.
CREATE TABLE runs (
	id              TEXT PRIMARY KEY,
	conversation_id TEXT NOT NULL DEFAULT '',
	user_name       TEXT NOT NULL DEFAULT '',
	instance        TEXT NOT NULL DEFAULT '',
	state           TEXT NOT NULL,
	last_seq        INTEGER NOT NULL DEFAULT 0,
	cancel_requested INTEGER NOT NULL DEFAULT 0,
	created_at      INTEGER NOT NULL,
	finished_at     INTEGER
) STRICT;
CREATE INDEX runs_by_instance ON runs (instance, state);
CREATE INDEX runs_by_conversation ON runs (conversation_id, created_at);

CREATE TABLE run_events (
	run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	kind       TEXT NOT NULL,
	data       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (run_id, seq)
) STRICT, WITHOUT ROWID;
