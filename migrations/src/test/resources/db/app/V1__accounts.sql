CREATE TABLE accounts (
    id      BIGINT NOT NULL PRIMARY KEY,
    balance BIGINT NOT NULL
);
