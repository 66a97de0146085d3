/**
 * Testcontainers fixtures (PostgreSQL, Redis, LocalStack for S3 and DynamoDB) for machines with
 * a Docker engine. Tests that use them carry {@link dev.fencing.testkit.containers.RequiresDocker},
 * which skips them with a printed reason where no engine answers.
 */
@NullMarked
package dev.fencing.testkit.containers;

import org.jspecify.annotations.NullMarked;
