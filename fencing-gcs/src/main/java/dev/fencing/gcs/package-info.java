/**
 * Fencing tokens enforced by Google Cloud Storage generation preconditions:
 * {@link dev.fencing.gcs.GcsFencedStore} keeps one object per key with the token in its metadata,
 * and writes with {@code ifGenerationMatch} on the generation whose token it checked
 * ({@code ifGenerationMatch=0} for a new key). GCS gives every write a new generation, so the
 * condition tells two writes apart even when their bytes are identical.
 */
@NullMarked
package dev.fencing.gcs;

import org.jspecify.annotations.NullMarked;
