package dev.fencing.propagation.readme;

import dev.fencing.core.FencingListener;
import dev.fencing.propagation.AllowedLocks;
import dev.fencing.propagation.grpc.FencingServerInterceptor;
import dev.fencing.propagation.servlet.FencingTokenFilter;
import dev.fencing.propagation.spring.FencingTokenArgumentResolver;

/**
 * The lock declaration snippet of docs/propagation.md, verbatim: compiled by this module's build,
 * found in the docs by the CLI module's {@code DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class AllowedLocksSnippets {

    private AllowedLocksSnippets() {}

    static void declaration() {
        AllowedLocks locks = AllowedLocks.builder()
                .lock("billing-scheduler")                 // on every path
                .forPath("/orders/**", "order-*")          // order-1, order-2 ... under /orders/ only
                .build();
        FencingListener metrics = FencingListener.NONE;    // your MicrometerFencingListener
        FencingTokenFilter filter = FencingTokenFilter.builder().allowedLocks(locks).listener(metrics).requireToken().build();
        FencingTokenArgumentResolver resolver = new FencingTokenArgumentResolver(locks, metrics);
        FencingServerInterceptor interceptor = FencingServerInterceptor.builder()
                .allowedLocks(AllowedLocks.builder().forPath("shop.Ledger/*", "billing-scheduler").build())
                .listener(metrics).build();
    }
}
