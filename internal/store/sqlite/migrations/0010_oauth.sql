-- Switchboard as an OAuth authorization server: its clients, each user's
-- grants to them, and the hashes of the codes and tokens issued from a
-- grant. A user's deletion deletes their grants and tokens.
CREATE TABLE oauth_clients (
	id            TEXT PRIMARY KEY,
	name          TEXT NOT NULL,
	redirect_uris TEXT NOT NULL,
	source        TEXT NOT NULL,
	created_at    INTEGER NOT NULL
) STRICT;
CREATE TABLE oauth_grants (
	id         TEXT PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	client_id  TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
	resource   TEXT NOT NULL,
	scopes     TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
) STRICT;
CREATE INDEX oauth_grants_by_user ON oauth_grants (user_id, created_at);
CREATE TABLE oauth_tokens (
	hash         TEXT PRIMARY KEY,
	grant_id     TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
	kind         TEXT NOT NULL,
	expires_at   INTEGER NOT NULL,
	redirect_uri TEXT NOT NULL,
	challenge    TEXT NOT NULL,
	used_at      INTEGER,
	created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX oauth_tokens_by_grant ON oauth_tokens (grant_id);
