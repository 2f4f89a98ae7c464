-- Switchboard as an OAuth authorization server: its clients, each user's
-- grants to them, and the hashes of the codes and tokens issued from a
-- grant, shared by every replica. A user's deletion deletes their grants
-- and tokens.
CREATE TABLE oauth_clients (
	id            text PRIMARY KEY,
	name          text NOT NULL,
	redirect_uris text NOT NULL,
	source        text NOT NULL,
	created_at    timestamptz NOT NULL
);
CREATE TABLE oauth_grants (
	id         text PRIMARY KEY,
	user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	client_id  text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
	resource   text NOT NULL,
	scopes     text NOT NULL,
	created_at timestamptz NOT NULL,
	revoked_at timestamptz
);
CREATE INDEX oauth_grants_by_user ON oauth_grants (user_id, created_at);
CREATE TABLE oauth_tokens (
	hash         text PRIMARY KEY,
	grant_id     text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
	kind         text NOT NULL,
	expires_at   timestamptz NOT NULL,
	redirect_uri text NOT NULL,
	challenge    text NOT NULL,
	used_at      timestamptz,
	created_at   timestamptz NOT NULL
);
CREATE INDEX oauth_tokens_by_grant ON oauth_tokens (grant_id);
