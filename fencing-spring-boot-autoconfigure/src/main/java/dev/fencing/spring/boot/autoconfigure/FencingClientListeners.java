package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The listeners of the application's outgoing fenced calls, one per client name: what a client's
 * refused calls are told to. Each is the application's {@code FencingListener} beans, with the
 * Micrometer one (when there is a registry) counting under the {@code store} tag of the client's
 * name, so that the refusals of two downstream services are told apart; refusals are logged (WARN,
 * logger {@code dev.fencing.refused}) by the interceptor in any case.
 *
 * <pre>{@code
 * RestClient ledger = builder.baseUrl(url)
 *         .requestInterceptor(FencingTokenInterceptor.fromContext().listener(clients.forClient("ledger")))
 *         .build();
 * }</pre>
 *
 * <p>The auto-configuration gives every {@code RestClient.Builder} and {@code WebClient.Builder} that
 * Boot builds the one of {@code fencing.propagation.client.name}. Thread-safe.
 */
public final class FencingClientListeners {

    private final List<FencingListener> others;
    private final @Nullable Function<String, FencingListener> counting;
    private final Map<String, FencingListener> byName = new ConcurrentHashMap<>();

    /**
     * Listeners made of {@code others} (the application's listeners that do not count by client) and,
     * per name, what {@code counting} makes for it (null: no counting listener).
     */
    FencingClientListeners(List<FencingListener> others, @Nullable Function<String, FencingListener> counting) {
        this.others = List.copyOf(others);
        this.counting = counting;
    }

    /**
     * The listener of the client named {@code name}: lower-case letters, digits, {@code .},
     * {@code _} and {@code -}, at most 64 (a Micrometer tag value).
     *
     * @throws IllegalArgumentException if {@code name} is not such a name
     */
    public FencingListener forClient(String name) {
        return byName.computeIfAbsent(requireName(name), this::build);
    }

    /** {@code name} if it is a valid client name (a Micrometer tag value). */
    static String requireName(String name) {
        if (name == null || !name.matches("[a-z0-9][a-z0-9._-]{0,63}")) {
            throw new IllegalArgumentException("client name must match [a-z0-9][a-z0-9._-]{0,63}, got '" + name + "'");
        }
        return name;
    }

    private FencingListener build(String name) {
        List<FencingListener> all = new ArrayList<>(others);
        if (counting != null) {
            all.add(counting.apply(name));
        }
        return Listeners.of(all);
    }
}
