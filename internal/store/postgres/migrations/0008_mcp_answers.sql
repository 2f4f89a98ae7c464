-- Answers of MCP clients to the gateway's questions (elicitation) that
-- reached a replica other than the one waiting for them: the replica that
-- got the answer inserts it, the one holding the session takes (deletes)
-- it when the change feed tells it.
CREATE TABLE mcp_answers (
	id         bigserial PRIMARY KEY,
	session    text NOT NULL,
	target     text NOT NULL,
	body       text NOT NULL,
	created_at timestamptz NOT NULL
);
CREATE INDEX mcp_answers_by_session ON mcp_answers (session, target);
CREATE INDEX mcp_answers_by_age ON mcp_answers (created_at);
