/** Lua scripts and their execution for the Redis provider; not an API. */
@NullMarked
package dev.fencing.redis.internal;

import org.jspecify.annotations.NullMarked;
