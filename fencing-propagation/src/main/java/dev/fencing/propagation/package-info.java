/**
 * The fencing token across service boundaries: its wire form ({@link dev.fencing.propagation.TokenHeader}),
 * the caller's scope ({@link dev.fencing.propagation.FencingContext}), the receiving service's gate
 * ({@link dev.fencing.propagation.TokenGate}) and refusals ({@link dev.fencing.propagation.TokenRefusal}).
 * The transports are in the sub-packages, each needing only its own library.
 */
@NullMarked
package dev.fencing.propagation;

import org.jspecify.annotations.NullMarked;
