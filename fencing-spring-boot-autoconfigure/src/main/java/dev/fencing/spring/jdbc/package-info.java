/**
 * Fences for Spring-managed transactions: {@link dev.fencing.spring.jdbc.TransactionalFence} raises
 * a lock's fence row on the connection of the current {@code @Transactional} (or
 * {@code TransactionTemplate}) transaction, so {@code JdbcTemplate}, Spring Data JDBC and JPA writes
 * commit together with the fence or not at all.
 */
@NullMarked
package dev.fencing.spring.jdbc;

import org.jspecify.annotations.NullMarked;
