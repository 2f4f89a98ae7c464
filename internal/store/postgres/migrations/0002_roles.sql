-- Roles and the users version. A user is "user" or "admin". An existing
-- database gets one admin: its oldest user, when none is admin, so that
-- someone can still manage agents and servers over the API (before roles,
-- every user could). Everyone else keeps working as a "user".
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin'));
UPDATE users SET role = 'admin'
	WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)
	AND NOT EXISTS (SELECT 1 FROM users WHERE role = 'admin');

-- users_version changes with every write to users, whoever makes it, so a
-- server's cache of users checks one row instead of reading them all.
CREATE TABLE users_version (
	id      integer PRIMARY KEY CHECK (id = 1),
	version bigint NOT NULL
);
INSERT INTO users_version (id, version) VALUES (1, 1);
CREATE FUNCTION users_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE users_version SET version = version + 1 WHERE id = 1;
	RETURN NULL;
END
$$;
CREATE TRIGGER users_version_bump AFTER INSERT OR UPDATE OR DELETE ON users
	FOR EACH STATEMENT EXECUTE FUNCTION users_version_bump();
