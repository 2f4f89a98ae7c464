-- Accounts at an OpenID provider linked to users: a person signing in is
-- matched by (issuer, subject), never by name or e-mail, which the
-- provider's users may choose. Deleting the user deletes the link, so the
-- same account signing in again gets a new user.
CREATE TABLE user_identities (
	issuer     text NOT NULL,
	subject    text NOT NULL,
	user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (issuer, subject)
);
CREATE INDEX user_identities_user ON user_identities (user_id);
