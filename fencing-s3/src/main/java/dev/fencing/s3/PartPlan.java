package dev.fencing.s3;

import java.util.ArrayList;
import java.util.List;

/**
 * How a file is cut into the parts of a multipart upload, within S3's limits: parts of 5 MiB to
 * 5 GiB (the last one may be smaller), at most 10,000 parts, objects up to 5 TiB.
 */
final class PartPlan {

    static final long MIN_PART = 5L * 1024 * 1024;
    static final long MAX_PART = 5L * 1024 * 1024 * 1024;
    static final int MAX_PARTS = 10_000;
    static final long MAX_OBJECT = 5L * 1024 * 1024 * 1024 * 1024;

    /** One part: its 1-based number and the bytes of the file it holds. */
    record Part(int number, long offset, long length) {}

    private PartPlan() {}

    /**
     * The parts of a {@code size}-byte file cut into {@code partSize}-byte parts.
     *
     * @throws IllegalArgumentException if the part size or the file is outside S3's limits
     */
    static List<Part> of(long size, long partSize) {
        if (partSize < MIN_PART || partSize > MAX_PART) {
            throw new IllegalArgumentException("partSize must be between 5 MiB (" + MIN_PART + ") and 5 GiB (" + MAX_PART
                    + "), S3's limits for a part, got " + partSize);
        }
        if (size > MAX_OBJECT) {
            throw new IllegalArgumentException("the file is " + size + " bytes; S3 objects are at most 5 TiB");
        }
        long parts = Math.max(1, (size + partSize - 1) / partSize);
        if (parts > MAX_PARTS) {
            throw new IllegalArgumentException("a " + size + "-byte file in parts of " + partSize + " bytes needs " + parts
                    + " parts; S3 allows " + MAX_PARTS + ": use a partSize of at least "
                    + ((size + MAX_PARTS - 1) / MAX_PARTS));
        }
        return split(size, partSize);
    }

    /** The cutting itself, without S3's limits (tests use small parts). */
    static List<Part> split(long size, long partSize) {
        List<Part> parts = new ArrayList<>();
        long offset = 0;
        int number = 1;
        do {
            long length = Math.min(partSize, size - offset);
            parts.add(new Part(number++, offset, length));
            offset += length;
        } while (offset < size);
        return parts;
    }
}
