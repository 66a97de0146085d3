package dev.fencing.bench;

import dev.fencing.cli.backends.Backends;
import dev.fencing.cli.backends.ConnectionOptions;
import dev.fencing.cli.backends.FencedService;
import dev.fencing.cli.backends.FencedServiceClient;
import dev.fencing.cli.backends.LockKind;
import dev.fencing.cli.backends.StoreKind;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.FencingContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Comparison 11: what carrying the token to a downstream service costs per call. One HTTP PUT to a
 * service on loopback (the JDK's HTTP server) that stores the body in Redis: unfenced (the
 * baseline), unfenced twice (as many Redis requests as the gate makes: its floor), behind a {@link dev.fencing.propagation.TokenGate} (one fenced write to admit the
 * token, then the same unfenced write), and written through the fenced Redis store with the token.
 */
final class PropagationComparisons extends Comparisons {

    PropagationComparisons(BenchSession session) {
        super(session);
    }

    @SuppressWarnings("try") // the scopes are read by the HTTP client, not the blocks
    void run(BenchRunner runner) throws Exception {
        Backends backends = Backends.open(LockKind.REDIS, StoreKind.REDIS, new ConnectionOptions());
        resources.push(backends);
        FencedService service = FencedService.start(backends);
        resources.push(service);
        FencedServiceClient client = new FencedServiceClient(service.url());
        AtomicLong tokens = new AtomicLong();
        List<BenchRunner.Contender> contenders = List.of(
                        new BenchRunner.Contender("plain PUT, the service writes to Redis (baseline)", (w, i) ->
                                client.put("/plain", "plain-" + w, "v" + i)),
                        new BenchRunner.Contender("plain PUT, the service writes to Redis twice (a gate's requests,"
                                + " no token)", (w, i) -> client.put("/plain-twice", "twice-" + w, "v" + i)),
                        new BenchRunner.Contender("plain PUT, the service makes one fenced write with a token of its"
                                + " own, then the same write (a gate's floor)",
                                (w, i) -> client.put("/plain-marked", "marked-" + w, "v" + i)),
                        new BenchRunner.Contender("PUT with Fencing-Token, TokenGate admits it (one fenced write),"
                                + " then the same write", (w, i) -> {
                                    try (FencingContext.Scope scope = FencingContext.bind(
                                            FencingToken.of("gated-" + w, tokens.incrementAndGet()))) {
                                        client.put("/gated", "gated-" + w, "v" + i);
                                    }
                                }),
                        new BenchRunner.Contender("PUT with Fencing-Token, the service writes through the fenced"
                                + " Redis store", (w, i) -> {
                                    try (FencingContext.Scope scope = FencingContext.bind(
                                            FencingToken.of("fenced-" + w, tokens.incrementAndGet()))) {
                                        client.put("/fenced", "fenced-" + w, "v" + i);
                                    }
                                }));
        add(11, "A call to a downstream service over HTTP: unfenced vs token checked by a gate vs by the write",
                runner.latency(contenders),
                Map.of("server", "JDK HttpServer on loopback in the bench's JVM; " + backends.storeDescription()));
        CycleAccounting.addTo(results.get(results.size() - 1), CycleAccounting.of(contenders, null));
    }
}
