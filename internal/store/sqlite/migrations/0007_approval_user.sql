-- The user who asked for an approval outside a conversation (a call through
-- the tools API), so that user can list and decide it. Calls in a
-- conversation leave it empty: the conversation's owner decides.
ALTER TABLE approvals ADD COLUMN user_name TEXT NOT NULL DEFAULT '';
CREATE INDEX approvals_by_user ON approvals (user_name, state);

-- The ID of the user who made a call, beside the name: the name is for
-- display and filters, the ID says who it was even after a rename or a
-- new user with an old name. Empty for the local user.
ALTER TABLE audit ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
