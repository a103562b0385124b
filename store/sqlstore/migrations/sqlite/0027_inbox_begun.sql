-- Turns across replicas (ST2): a chat's messages are answered one at a
-- time by whichever replica holds the chat, oldest first, so the waiting
-- messages of one chat are read by chat. begun marks a message whose turn
-- started: if its replica dies, the next one goes on from what that turn
-- stored instead of asking the model again. Portable SQL.
ALTER TABLE inbox ADD COLUMN begun INTEGER NOT NULL DEFAULT 0;
CREATE INDEX inbox_chat ON inbox (chat, id);
