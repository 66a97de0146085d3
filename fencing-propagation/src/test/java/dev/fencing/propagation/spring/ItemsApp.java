package dev.fencing.propagation.spring;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.propagation.AllowedLocks;
import dev.fencing.propagation.CasBody;
import dev.fencing.propagation.TokenGate;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.servlet.FencingTokenFilter;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.InMemoryStorage;
import dev.fencing.testkit.RecordingListener;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * A downstream service as a team would write it with Spring MVC: its handlers take the caller's
 * {@link FencingToken} as a parameter and write to their own fenced store with it. Writes live
 * under {@code /{policy}/fenced/} (the filter requires a token there), reads under
 * {@code /{policy}/read/}; {@code /echo} returns the token it was given and {@code /gated/echo}
 * sits behind a {@link TokenGate}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({FencingProblemAdvice.class, ItemsApp.CatchAll.class})
public class ItemsApp implements WebMvcConfigurer {

    /** The locks the {@code /declared/} endpoints may be fenced by. */
    static final AllowedLocks DECLARED = AllowedLocks.builder().lock("billing-scheduler")
            .forPath("/declared/orders/**", "order-*").build();

    /** What the declared endpoints' filter and resolver told their listener. */
    static final RecordingListener DECLARED_LISTENER = new RecordingListener();

    /** The tokens the once-only gate admitted, one entry per admission. */
    static final List<FencingToken> ONCE_ADMITTED = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Every policy's store over one in-memory server, as one database under two services' settings. */
    static final InMemoryStorage MEMORY = new InMemoryStorage();

    /** The stores the gated endpoint's gate writes its marks to. */
    static final FencedStore GATE_MARKS = InMemoryFencedStore.create();

    /** How many requests reached the gated handler. */
    static final AtomicInteger GATED_CALLS = new AtomicInteger();

    private final Map<Policy, FencedStore> stores = new EnumMap<>(Policy.class);

    public ItemsApp() {
        for (Policy policy : Policy.values()) {
            stores.put(policy, InMemoryFencedStore.builder().storage(MEMORY).policy(policy).build());
        }
    }

    /** The service of this test JVM, started on a free loopback port on first use. */
    public static synchronized String baseUrl() {
        if (running == null) {
            ConfigurableApplicationContext app = new SpringApplicationBuilder(ItemsApp.class)
                    .properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off").run();
            running = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
        }
        return running;
    }

    private static @Nullable String running;

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(new FencingTokenArgumentResolver());
    }

    /** Most services have one: an advice answering every exception, declared without an order. */
    @RestControllerAdvice
    static class CatchAll {

        @ExceptionHandler(Exception.class)
        ResponseEntity<String> anything(Exception e) {
            return ResponseEntity.status(500).body("caught by the application's catch-all: " + e);
        }
    }

    /**
     * A gate that admits each token once, as a STRICT gate would: a second admission of a request
     * it already admitted (an ASYNC or ERROR dispatch) is refused.
     */
    @Bean
    FilterRegistrationBean<FencingTokenFilter> onceGated() {
        java.util.Set<FencingToken> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        TokenGate once = token -> {
            ONCE_ADMITTED.add(token);
            if (!seen.add(token)) {
                throw dev.fencing.core.StaleTokenException.of(TokenGate.keyOf(token.resource()), token, token.value(),
                        Policy.STRICT);
            }
        };
        FilterRegistrationBean<FencingTokenFilter> registration =
                new FilterRegistrationBean<>(FencingTokenFilter.builder().requireToken().gate(once).build());
        registration.addUrlPatterns("/once/*", "/error");
        registration.setDispatcherTypes(jakarta.servlet.DispatcherType.REQUEST, jakarta.servlet.DispatcherType.ASYNC,
                jakarta.servlet.DispatcherType.ERROR);
        registration.setName("onceGated");
        return registration;
    }

    /** The endpoints behind a lock declaration. */
    @Bean
    FilterRegistrationBean<FencingTokenFilter> declared() {
        FilterRegistrationBean<FencingTokenFilter> registration = new FilterRegistrationBean<>(FencingTokenFilter
                .builder().requireToken().allowedLocks(DECLARED).listener(DECLARED_LISTENER).build());
        registration.addUrlPatterns("/declared/*");
        registration.setName("declared");
        return registration;
    }

    @Bean
    FilterRegistrationBean<FencingTokenFilter> fencedWrites() {
        FilterRegistrationBean<FencingTokenFilter> registration =
                new FilterRegistrationBean<>(FencingTokenFilter.builder().requireToken().build());
        registration.addUrlPatterns("/MONOTONIC/fenced/*", "/STRICT/fenced/*");
        registration.setName("fencedWrites");
        return registration;
    }

    @Bean
    FilterRegistrationBean<FencingTokenFilter> gated() {
        FilterRegistrationBean<FencingTokenFilter> registration = new FilterRegistrationBean<>(
                FencingTokenFilter.builder().requireToken().gate(TokenGate.over(GATE_MARKS)).build());
        registration.addUrlPatterns("/gated/*");
        registration.setName("gated");
        return registration;
    }

    @RestController
    static class Items {

        private final ItemsApp app;

        Items(ItemsApp app) {
            this.app = app;
        }

        @PutMapping("/{policy}/fenced/items")
        ResponseEntity<Void> write(@PathVariable("policy") Policy policy, @RequestParam("key") String key,
                @RequestBody(required = false) String value, FencingToken token) {
            app.stores.get(policy).write(token, key, value == null ? "" : value);
            return ResponseEntity.noContent().build();
        }

        @DeleteMapping("/{policy}/fenced/items")
        ResponseEntity<Void> delete(@PathVariable("policy") Policy policy, @RequestParam("key") String key, FencingToken token) {
            app.stores.get(policy).delete(token, key);
            return ResponseEntity.noContent().build();
        }

        @PostMapping("/{policy}/fenced/cas")
        ResponseEntity<String> compareAndSet(@PathVariable("policy") Policy policy, @RequestParam("key") String key,
                @RequestBody String body, FencingToken token) {
            CasBody cas = CasBody.decode(body);
            try {
                StoredValue written = app.stores.get(policy).update(token, key, current -> {
                    if (!current.equals(cas.expected())) {
                        throw new CasBody.Changed();
                    }
                    return cas.next();
                });
                return ResponseEntity.ok(Long.toString(written.token()));
            } catch (CasBody.Changed changed) {
                return ResponseEntity.status(412).build();
            }
        }

        /** The value for a read-modify-write: a read that checks the caller's token like a write would. */
        @PostMapping(path = "/{policy}/fenced/peek", produces = "text/plain;charset=UTF-8")
        ResponseEntity<String> peek(@PathVariable("policy") Policy policy, @RequestParam("key") String key,
                FencingToken token) {
            try {
                app.stores.get(policy).update(token, key, current -> {
                    throw new CasBody.Peeked(current);
                });
                throw new IllegalStateException("update returned without applying the change");
            } catch (CasBody.Peeked peeked) {
                return peeked.value().map(v -> ResponseEntity.ok(v)).orElse(ResponseEntity.notFound().build());
            }
        }

        @GetMapping(path = "/{policy}/read/items", produces = "text/plain;charset=UTF-8")
        ResponseEntity<String> read(@PathVariable("policy") Policy policy, @RequestParam("key") String key) {
            return app.stores.get(policy).read(key)
                    .map(v -> ResponseEntity.ok().header("Item-Token", Long.toString(v.token())).body(v.value()))
                    .orElse(ResponseEntity.notFound().build());
        }

        @GetMapping(path = "/{policy}/read/marks", produces = "text/plain;charset=UTF-8")
        ResponseEntity<String> mark(@PathVariable("policy") Policy policy, @RequestParam("key") String key) {
            var mark = app.stores.get(policy).highWaterMark(key);
            return mark.isPresent() ? ResponseEntity.ok(Long.toString(mark.getAsLong())) : ResponseEntity.notFound().build();
        }

        @GetMapping(path = "/echo", produces = "text/plain;charset=UTF-8")
        String echo(Optional<FencingToken> token) {
            return token.map(TokenHeader::format).orElse("none");
        }

        /** A handler whose store lost the reply to a write, or kept losing races. */
        @PostMapping("/failing/{how}")
        void failing(@PathVariable("how") String how, FencingToken token) {
            if (how.equals("unclear")) {
                throw WriteOutcomeUnknownException.of("unclear-item", new java.io.IOException("reply lost"));
            }
            throw ConcurrentUpdateException.gaveUp("busy-item", 8);
        }

        /**
         * A handler that writes with the caller's token, then calls another fenced service with a
         * token of its own (its own lock, {@code downstreamLock} at 1), letting that refusal out.
         */
        @PutMapping("/relay/items")
        ResponseEntity<Void> relay(@RequestParam("key") String key, @RequestParam("downstreamLock") String downstreamLock,
                @RequestBody String value, FencingToken token) {
            app.stores.get(Policy.MONOTONIC).write(token, key, value);
            org.springframework.web.client.RestClient.builder().baseUrl(baseUrl())
                    .requestInterceptor(FencingTokenInterceptor.of(FencingToken.of(downstreamLock, 1))).build().put()
                    .uri(b -> b.path("/MONOTONIC/fenced/items").queryParam("key", "{key}").build(key + "-downstream"))
                    .contentType(org.springframework.http.MediaType.TEXT_PLAIN).body(value).retrieve().toBodilessEntity();
            return ResponseEntity.noContent().build();
        }

        /**
         * A handler that writes with the caller's token, then calls another fenced service (a
         * handler whose store keeps losing races) with a token of its own, letting that failure out.
         */
        @PutMapping("/relay-busy/items")
        ResponseEntity<Void> relayBusy(@RequestParam("key") String key, @RequestBody String value, FencingToken token) {
            app.stores.get(Policy.MONOTONIC).write(token, key, value);
            org.springframework.web.client.RestClient.builder().baseUrl(baseUrl())
                    .requestInterceptor(FencingTokenInterceptor.of(FencingToken.of(key + "-own-lock", 1))).build().post()
                    .uri("/failing/busy").retrieve().toBodilessEntity();
            return ResponseEntity.noContent().build();
        }

        /** A service that does not use the toolkit's server pieces, relaying a refusal of some other token. */
        @PostMapping("/relaying-by-hand")
        ResponseEntity<Void> relayingByHand() {
            return ResponseEntity.status(409).header(dev.fencing.propagation.TokenRefusal.HTTP_HEADER,
                    "stale; token=1; lock=someone-else; key=k; mark=2; policy=MONOTONIC").build();
        }

        /** A handler whose store call reaches Spring MVC wrapped: work joined from another thread. */
        @PutMapping("/{policy}/wrapped/items")
        ResponseEntity<Void> writeWrapped(@PathVariable("policy") Policy policy, @RequestParam("key") String key,
                @RequestBody String value, FencingToken token) {
            java.util.concurrent.CompletableFuture.runAsync(() -> app.stores.get(policy).write(token, key, value)).join();
            return ResponseEntity.noContent().build();
        }

        /** A handler whose store kept losing races, its exception wrapped the same way. */
        @PostMapping("/wrapped/busy")
        ResponseEntity<Void> busyWrapped(FencingToken token) {
            java.util.concurrent.CompletableFuture.runAsync(() -> {
                throw ConcurrentUpdateException.gaveUp("busy-wrapped", 8);
            }).join();
            return ResponseEntity.noContent().build();
        }

        /** An async handler: the write runs on Spring MVC's executor, the answer on an ASYNC dispatch. */
        @PutMapping("/once/async-items")
        java.util.concurrent.Callable<ResponseEntity<Void>> writeAsync(@RequestParam("key") String key,
                @RequestBody String value, FencingToken token) {
            return () -> {
                app.stores.get(Policy.STRICT).write(token, key, value);
                return ResponseEntity.noContent().build();
            };
        }

        /** A handler that writes, then fails: the container's error page answers on an ERROR dispatch. */
        @PutMapping("/once/failing-items")
        void writeThenFail(@RequestParam("key") String key, @RequestBody String value, FencingToken token,
                jakarta.servlet.http.HttpServletResponse response) throws java.io.IOException {
            app.stores.get(Policy.STRICT).write(token, key, value);
            response.sendError(503, "the handler failed after its write");
        }

        /** The declared endpoints: a write that any token of an allowed lock may fence. */
        @PutMapping({"/declared/items", "/declared/orders/items"})
        ResponseEntity<Void> writeDeclared(@RequestParam("key") String key, @RequestBody String value,
                FencingToken token) {
            app.stores.get(Policy.MONOTONIC).write(token, key, value);
            return ResponseEntity.noContent().build();
        }

        @PostMapping("/gated/echo")
        String gatedEcho(FencingToken token) {
            GATED_CALLS.incrementAndGet();
            return TokenHeader.format(token);
        }
    }
}
