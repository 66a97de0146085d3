package dev.fencing.core;

import dev.fencing.core.internal.Checks;
import java.util.Comparator;

/**
 * A fencing token: the number a lock provider hands out with a grant of {@code resource}.
 *
 * <p>For one resource, every grant carries a token strictly greater than every token granted
 * before it (how far that holds across provider failures is documented by each provider). A
 * store that remembers the highest token it accepted can therefore refuse the writes of any
 * earlier holder.
 *
 * <p>Tokens order by resource name, then by value; only tokens of the same resource are
 * meaningfully comparable — use {@link #isNewerThan(FencingToken)} to compare those.
 *
 * @param resource the locked resource, 1 to {@value Checks#MAX_NAME_LENGTH} characters
 * @param value the token, at least 1
 */
public record FencingToken(String resource, long value) implements Comparable<FencingToken> {

    private static final Comparator<FencingToken> ORDER =
            Comparator.comparing(FencingToken::resource).thenComparingLong(FencingToken::value);

    /** Validates both components; throws {@link IllegalArgumentException} naming the bad one. */
    public FencingToken {
        Checks.requireName("resource", resource);
        if (value < 1) {
            throw new IllegalArgumentException(
                    "fencing token value must be at least 1, got " + value + " for resource '" + resource + "'");
        }
    }

    /** Same as the canonical constructor; reads well at call sites. */
    public static FencingToken of(String resource, long value) {
        return new FencingToken(resource, value);
    }

    /**
     * This token's value under the name {@code fence} instead of its resource, for a key that
     * several locks fence on purpose. A store binds each key to the resource of the tokens written
     * to it and refuses a token of another resource ({@link ForeignTokenException}); every lock
     * writing such a key presents its tokens under the same {@code fence} name instead. Do this only
     * when the locks' token values are comparable — one provider whose tokens are seeded from one
     * clock (the Redis and Postgres providers) — since the store then orders them against each other.
     *
     * @param fence the shared fence name, 1 to {@value Checks#MAX_NAME_LENGTH} characters
     */
    public FencingToken forSharedFence(String fence) {
        return new FencingToken(fence, value);
    }

    /**
     * Whether this token was granted after {@code other}.
     *
     * @throws IllegalArgumentException if the tokens belong to different resources
     */
    public boolean isNewerThan(FencingToken other) {
        if (!resource.equals(other.resource)) {
            throw new IllegalArgumentException("cannot compare tokens of different resources: '"
                    + resource + "' and '" + other.resource + "'");
        }
        return value > other.value;
    }

    @Override
    public int compareTo(FencingToken other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return resource + "#" + value;
    }
}
