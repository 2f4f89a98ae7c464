-- The user who asked for an approval outside a conversation (a call through
-- the tools API), so that user can list and decide it. Calls in a
-- conversation leave it empty: the conversation's owner decides.
ALTER TABLE approvals ADD COLUMN user_name text NOT NULL DEFAULT '';
CREATE INDEX approvals_by_user ON approvals (user_name, state);
