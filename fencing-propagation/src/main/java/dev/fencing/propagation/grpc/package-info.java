/**
 * gRPC: {@link dev.fencing.propagation.grpc.FencingClientInterceptor} sends the caller's token in
 * the {@value dev.fencing.propagation.TokenHeader#GRPC_KEY} metadata key,
 * {@link dev.fencing.propagation.grpc.FencingServerInterceptor} reads it, admits it through a gate
 * and answers refusals, and {@link dev.fencing.propagation.grpc.FencingGrpc} gives handlers the
 * token and turns a refusal back into the store's exception on the client. Needs only
 * {@code io.grpc:grpc-api}; no generated code.
 */
@NullMarked
package dev.fencing.propagation.grpc;

import org.jspecify.annotations.NullMarked;
