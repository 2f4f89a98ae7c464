-- Tool pinning: the accepted definition of every tool seen, and the changed
-- definition of a held tool.
CREATE TABLE tool_pins (
	server       text NOT NULL,
	tool         text NOT NULL,
	kind         text NOT NULL DEFAULT '',
	hash         text NOT NULL,
	accepted     text NOT NULL,
	pending_hash text NOT NULL DEFAULT '',
	pending      text NOT NULL DEFAULT '',
	status       text NOT NULL,
	created_at   timestamptz NOT NULL,
	updated_at   timestamptz NOT NULL,
	PRIMARY KEY (server, tool)
);
