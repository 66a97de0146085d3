/**
 * Fencing tokens enforced by SQL databases (PostgreSQL, MySQL/MariaDB): {@link
 * dev.fencing.jdbc.RowGuard} guards rows of a table with a token column, {@link
 * dev.fencing.jdbc.JdbcFence} and {@link dev.fencing.jdbc.JdbiFence} run existing DAO code in one
 * transaction behind a fence row, and {@link dev.fencing.jdbc.JdbcFencedStore} is the common
 * {@link dev.fencing.core.FencedStore} on a key-value table.
 */
@NullMarked
package dev.fencing.jdbc;

import org.jspecify.annotations.NullMarked;
