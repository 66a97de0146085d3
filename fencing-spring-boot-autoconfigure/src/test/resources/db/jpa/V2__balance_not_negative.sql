-- the JPA test's own migration: a balance below zero fails at the flush, which shows when
-- Hibernate flushes the entity change
ALTER TABLE accounts ADD CONSTRAINT balance_not_negative CHECK (balance >= 0);
