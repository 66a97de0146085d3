/**
 * Fencing tokens enforced by Azure Blob Storage conditional writes:
 * {@link dev.fencing.azure.blob.AzureBlobFencedStore} keeps one blob per key with the token in its
 * metadata, and writes with {@code If-Match} on the ETag whose token it checked
 * ({@code If-None-Match: *} for a new key). Azure gives every write a new ETag, so the condition
 * tells two writes apart even when their bytes are identical.
 */
@NullMarked
package dev.fencing.azure.blob;

import org.jspecify.annotations.NullMarked;
