package dev.fencing.s3;

/**
 * How {@link FencedS3} lays a fenced write out in the bucket. The choice decides whether the fence
 * holds for every body, and what other S3 readers (Athena, Spark, the console) see.
 *
 * <p>Why it matters: S3 can only make a write conditional on the object's ETag, and for an object
 * uploaded in one part (without SSE-KMS or SSE-C) the ETag is the MD5 of its bytes. If two writes
 * put identical bytes, the ETag cannot tell them apart, so an {@code If-Match} taken against the
 * first also matches the second. A sound fence therefore compare-and-swaps only objects whose
 * bytes are unique to the write that made them.
 */
public enum S3Layout {

    /**
     * Sound for every body; the default. The content goes to an immutable data object under a key of
     * its own ({@code <dataPrefix><key>/<token>-<write id>}); the object at {@code key} is a small
     * pointer naming that data object, the token and a random write id, swapped with
     * {@code If-Match}. The pointer's bytes are unique to its write, so its ETag tells every write
     * apart, whatever the content. A replaced data object is deleted after the swap.
     *
     * <p>Read through {@link FencedS3#getObject}: a plain {@code GetObject} of {@code key} returns
     * the pointer, not the content, and tools that list the bucket see the data objects under the
     * data prefix. In practice a table (Athena, Spark) over the key prefix reads pointer text,
     * never the content; one over the data prefix reads each key's current data object plus any
     * left behind — a superseded one whose best-effort delete after the swap failed, one kept after
     * a swap whose reply was lost, a crashed writer's orphan. Nothing sweeps these: the toolkit
     * deletes only the data it replaces and the data of a refused write; delete one yourself only
     * when no pointer names it and it is older than any write in flight. Requests: a put is HEAD + PUT data + PUT pointer (+ DELETE of the replaced data
     * object), 3 to 4 cold and 2 to 3 with this writer's cache warm; a read is two GETs.
     */
    POINTER,

    /**
     * The content at {@code key} as is, the token in user metadata, the condition
     * {@code If-Match: <ETag>}: any S3 reader sees the object unchanged. Requests: HEAD + PUT cold,
     * PUT alone warm.
     *
     * <p><b>Not sound when bodies repeat.</b> A stale write slips through exactly when a newer holder
     * wrote bytes identical to the object the stale writer last saw (same ETag): its conditional put
     * matches, it lands, and the stored token goes backwards. Use it only when every body you put is
     * unique to its write — for example it embeds the token or a write id — or when that risk is
     * acceptable. Tombstones are always unique (the toolkit writes them), so a deleted key never comes
     * back through this hole, and {@link S3FencedStore} puts its own unique envelope around each value.
     */
    IN_PLACE
}
