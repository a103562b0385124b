-- Turns across replicas (ST2): begun marks a message whose turn started;
-- a chat's waiting messages are read by chat.
ALTER TABLE inbox ADD COLUMN begun INTEGER NOT NULL DEFAULT 0;
CREATE INDEX inbox_chat ON inbox (chat, id);
