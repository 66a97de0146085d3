/** Lua scripts and their execution for the Redis provider; not an API. */
package dev.fencing.redis.internal;
