/**
 * Flyway migrations for the fencing toolkit: {@link dev.fencing.migrations.FencingMigrations}
 * creates the toolkit's tables under their own history table, and
 * {@link dev.fencing.migrations.AddFencingTokenColumns} adds token columns to your tables from
 * your own Flyway run.
 */
@NullMarked
package dev.fencing.migrations;

import org.jspecify.annotations.NullMarked;
