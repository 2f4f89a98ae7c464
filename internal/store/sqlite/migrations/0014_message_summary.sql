-- summary_of > 0 marks a message as the model's summary of the
-- conversation's messages up to and including seq summary_of: model
-- requests carry it in their place once the conversation outgrows the
-- model's context window. 0 is an ordinary message.
ALTER TABLE messages ADD COLUMN summary_of INTEGER NOT NULL DEFAULT 0;
