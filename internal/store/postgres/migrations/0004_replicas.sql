-- Several replicas on one database.
--
-- approvals.instance is the replica whose run waits on the approval, so
-- that the others expire its pending approvals once it is gone.
ALTER TABLE approvals ADD COLUMN instance text NOT NULL DEFAULT '';
CREATE INDEX approvals_pending_by_instance ON approvals (instance) WHERE state = 'pending';

-- runs and run_events keep each agent run's events, numbered from 1, so
-- that a client re-attaches to a run's stream on any replica and resumes
-- after the last event it saw. instance is the replica running it.
CREATE TABLE runs (
	id              text PRIMARY KEY,
	conversation_id text NOT NULL DEFAULT '',
	user_name       text NOT NULL DEFAULT '',
	instance        text NOT NULL DEFAULT '',
	state           text NOT NULL, -- running, finished, interrupted
	last_seq        bigint NOT NULL DEFAULT 0,
	-- cancel_requested asks the replica running it to stop it.
	cancel_requested boolean NOT NULL DEFAULT false,
	created_at      timestamptz NOT NULL,
	finished_at     timestamptz
);
CREATE INDEX runs_running_by_instance ON runs (instance) WHERE state = 'running';
CREATE INDEX runs_by_conversation ON runs (conversation_id, created_at);

CREATE TABLE run_events (
	run_id     text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq        bigint NOT NULL,
	kind       text NOT NULL,
	data       text NOT NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (run_id, seq)
);

-- rate_limits counts each user's requests per kind and window, shared by
-- every replica: a replica reserves a share of the window's limit with one
-- atomic update, so the replicas together never exceed it. last_grant is
-- what the last reservation got (computed from the old row in the same
-- UPDATE).
CREATE TABLE rate_limits (
	user_name    text NOT NULL,
	kind         text NOT NULL,
	window_start timestamptz NOT NULL,
	used         bigint NOT NULL,
	last_grant   bigint NOT NULL,
	PRIMARY KEY (user_name, kind, window_start)
);
