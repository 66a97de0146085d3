package dev.fencing.redis.internal;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A Lua script run by {@code EVALSHA}, falling back to {@code EVAL} (which also caches it on the
 * server) when the server answers {@code NOSCRIPT} — after a restart, a failover or SCRIPT FLUSH.
 */
public final class LuaScript {

    private final String name;
    private final String source;
    private final String sha;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
    }

    /** The script {@code dev/fencing/redis/<name>.lua} from the class path. */
    public static LuaScript load(String name) {
        String path = "/dev/fencing/redis/" + name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing script " + path);
            }
            return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + path, e);
        }
    }

    /** Runs the script, returning its integer reply. */
    public long run(RedisScriptingCommands<String, String> redis, String[] keys, String... args) {
        Long reply = run(redis, ScriptOutputType.INTEGER, keys, args);
        return reply;
    }

    /**
     * Runs the script, returning its string reply — for numbers a {@code long} holds exactly but a
     * Lua number (a double) would round, such as fencing tokens above 2<sup>53</sup>.
     */
    public String runForText(RedisScriptingCommands<String, String> redis, String[] keys, String... args) {
        return run(redis, ScriptOutputType.VALUE, keys, args);
    }

    private <T> T run(RedisScriptingCommands<String, String> redis, ScriptOutputType type, String[] keys,
            String... args) {
        T reply;
        try {
            reply = redis.evalsha(sha, type, keys, args);
        } catch (RedisNoScriptException notCached) {
            reply = redis.eval(source, type, keys, args);
        }
        if (reply == null) {
            throw new IllegalStateException("script " + name + " returned nil");
        }
        return reply;
    }

    /**
     * Runs the script and waits for its reply up to {@code timeout} even if the calling thread is
     * interrupted, then restores the interrupt status — for a release, which should reach the
     * server whatever the caller's thread is told meanwhile (the command is on the wire anyway).
     *
     * @throws RedisException if the server failed the script or did not answer in time
     */
    public long runUninterruptibly(RedisScriptingAsyncCommands<String, String> redis, Duration timeout, String[] keys,
            String... args) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Long value;
        try {
            value = awaitUninterruptibly(redis.evalsha(sha, ScriptOutputType.INTEGER, keys, args), deadline, timeout);
        } catch (RedisNoScriptException notCached) {
            value = awaitUninterruptibly(redis.eval(source, ScriptOutputType.INTEGER, keys, args), deadline, timeout);
        }
        if (value == null) {
            throw new IllegalStateException("script " + name + " returned nil");
        }
        return value;
    }

    private Long awaitUninterruptibly(Future<Long> reply, long deadline, Duration timeout) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    reply.cancel(false); // a reply arriving later completes nothing
                    throw new RedisCommandTimeoutException("script " + name + " timed out after " + timeout.toMillis()
                            + " ms");
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RedisException redisError ? redisError
                            : new RedisException("script " + name + " failed", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs the script without blocking; a {@code NOSCRIPT} reply is retried with {@code EVAL}. */
    public CompletableFuture<Long> runAsync(RedisScriptingAsyncCommands<String, String> redis, String[] keys,
            String... args) {
        return redis.<Long>evalsha(sha, ScriptOutputType.INTEGER, keys, args).toCompletableFuture()
                .handle((reply, failure) -> {
                    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                    if (cause instanceof RedisNoScriptException) {
                        return redis.<Long>eval(source, ScriptOutputType.INTEGER, keys, args).toCompletableFuture();
                    }
                    return failure == null ? CompletableFuture.completedFuture(reply)
                            : CompletableFuture.<Long>failedFuture(cause);
                })
                .thenCompose(Function.identity());
    }

    private static String sha1(String source) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }
}
