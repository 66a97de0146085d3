/**
 * PostgreSQL advisory locks with durable fencing tokens: {@link
 * dev.fencing.postgres.PostgresAdvisoryLockProvider} (session locks on a dedicated connection)
 * and {@link dev.fencing.postgres.TransactionLocks} (locks scoped to the caller's transaction).
 */
@NullMarked
package dev.fencing.postgres;

import org.jspecify.annotations.NullMarked;
