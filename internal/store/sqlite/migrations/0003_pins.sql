-- Tool pinning: the accepted definition of every tool seen, and the changed
-- definition of a held tool. JSON is TEXT; times are microseconds.
CREATE TABLE tool_pins (
	server       TEXT NOT NULL,
	tool         TEXT NOT NULL,
	kind         TEXT NOT NULL DEFAULT '',
	hash         TEXT NOT NULL,
	accepted     TEXT NOT NULL,
	pending_hash TEXT NOT NULL DEFAULT '',
	pending      TEXT NOT NULL DEFAULT '',
	status       TEXT NOT NULL,
	created_at   INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL,
	PRIMARY KEY (server, tool)
) STRICT;
