/**
 * Real servers for tests: started once per JVM by the testkit (PostgreSQL in-process; Redis,
 * S3Mock, dynalite and etcd as child processes) and torn down at exit, or taken from environment
 * variables ({@code FENCING_PG_URL}, {@code FENCING_REDIS_URI}, {@code FENCING_S3_ENDPOINT},
 * {@code FENCING_DYNAMODB_ENDPOINT}, {@code FENCING_ETCD_ENDPOINTS}) to point at external ones. Servers the testkit started can
 * be stopped, killed, paused and restarted for fault tests; external ones cannot.
 */
@NullMarked
package dev.fencing.testkit.servers;

import org.jspecify.annotations.NullMarked;
