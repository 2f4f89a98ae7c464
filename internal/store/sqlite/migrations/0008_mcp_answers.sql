-- Answers of MCP clients to the gateway's questions (elicitation) that
-- reached a process other than the one waiting for them, kept until that
-- one takes them (several replicas on one PostgreSQL database; SQLite keeps
-- the same records).
CREATE TABLE mcp_answers (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	session    TEXT NOT NULL,
	target     TEXT NOT NULL,
	body       TEXT NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX mcp_answers_by_session ON mcp_answers (session, target);
CREATE INDEX mcp_answers_by_age ON mcp_answers (created_at);
