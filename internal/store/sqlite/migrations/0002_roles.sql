-- Roles and the users version. A user is "user" or "admin". An existing
-- database gets one admin: its oldest user, when none is admin, so that
-- someone can still manage agents and servers over the API (before roles,
-- every user could). Everyone else keeps working as a "user".
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin'));
UPDATE users SET role = 'admin'
	WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)
	AND NOT EXISTS (SELECT 1 FROM users WHERE role = 'admin');

-- users_version changes with every write to users, whoever makes it, so a
-- server's cache of users checks one row instead of reading them all.
CREATE TABLE users_version (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	version INTEGER NOT NULL
) STRICT;
INSERT INTO users_version (id, version) VALUES (1, 1);
CREATE TRIGGER users_version_insert AFTER INSERT ON users
BEGIN UPDATE users_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER users_version_update AFTER UPDATE ON users
BEGIN UPDATE users_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER users_version_delete AFTER DELETE ON users
BEGIN UPDATE users_version SET version = version + 1 WHERE id = 1; END;
