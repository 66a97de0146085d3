/**
 * The JDK's own HTTP client: {@link dev.fencing.propagation.http.FencedHttpClient}. No dependency.
 */
@NullMarked
package dev.fencing.propagation.http;

import org.jspecify.annotations.NullMarked;
