/**
 * A Redis lock provider whose grants carry fencing tokens from an {@code INCR} counter, over
 * Lettuce: {@link dev.fencing.redis.RedisLockProvider}.
 */
@NullMarked
package dev.fencing.redis;

import org.jspecify.annotations.NullMarked;
