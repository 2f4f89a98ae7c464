-- The form values an elicitation was accepted with (a JSON object), kept
-- from the decision until the call waiting for it takes them, so that an
-- answer given through one replica reaches the call another replica runs.
-- Empty otherwise: taking the values clears them (see docs/SECURITY.md).
ALTER TABLE approvals ADD COLUMN content text NOT NULL DEFAULT '';
