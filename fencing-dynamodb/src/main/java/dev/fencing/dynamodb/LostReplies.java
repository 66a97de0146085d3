package dev.fencing.dynamodb;

import dev.fencing.aws.internal.AwsReplies;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Where a fenced write leaves its write id ({@link AwsReplies#newWriteId}), so that after a lost
 * reply a consistent read tells "landed" (the item carries the id) from "unknown". Which failures
 * are unclear and which the SDK may send again is {@link AwsReplies}, shared with the S3 store.
 */
final class LostReplies {

    /** The attribute holding the id of the fenced write that last wrote the item. */
    static final String ATTRIBUTE = "fencing_write";

    private LostReplies() {}

    /** Whether {@code item} was last written by the fenced write {@code writeId}. */
    static boolean carries(Map<String, AttributeValue> item, String writeId) {
        AttributeValue stored = item == null ? null : item.get(ATTRIBUTE);
        return stored != null && writeId.equals(stored.s());
    }
}
