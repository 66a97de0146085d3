/**
 * Redis lock providers over Lettuce whose grants carry fencing tokens: {@link
 * dev.fencing.redis.RedisLockProvider}, each token {@code max(counter + 1, server TIME in µs)}, and
 * {@link dev.fencing.redis.RedlockProvider} over a majority of independent masters, each node's
 * token seeded from the round's shared clock reading (see its Javadoc).
 */
@NullMarked
package dev.fencing.redis;

import org.jspecify.annotations.NullMarked;
