-- the test application's own first migration: its versions and the toolkit's repeatable
-- migration share one history table
CREATE TABLE accounts (
    id      BIGINT PRIMARY KEY,
    balance BIGINT NOT NULL
);
INSERT INTO accounts (id, balance) VALUES (7, 100);
