package dev.fencing.propagation.readme;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.http.FencedHttpClient;
import dev.fencing.propagation.spring.FencingExchangeFilter;
import dev.fencing.propagation.spring.FencingTokenInterceptor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The client snippets of README.md and docs/propagation.md, verbatim: compiled by this module's
 * build, found in the docs by the CLI module's {@code DocsSnippetsTest}.
 */
@SuppressWarnings({"unused", "try"})
final class ClientSnippets {

    private ClientSnippets() {}

    static void restClient(LockProvider locks, String charge) throws InterruptedException {
        RestClient payments = RestClient.builder().baseUrl("http://payments")
                .requestInterceptor(FencingTokenInterceptor.fromContext())   // the token of the lease in scope
                .build();

        try (Lease lease = locks.acquire("order-7", LeaseOptions.ofTtl(Duration.ofSeconds(30)));
                FencingContext.Scope scope = FencingContext.bind(lease)) {
            payments.put().uri("/charges/order-7").body(charge).retrieve().toBodilessEntity();
        } catch (StaleTokenException e) {
            // the service refused this holder's token: a newer holder has written there. Stop.
        }
    }

    static void restClientExplicit(RestClient payments, Lease lease, String charge) {
        payments.put().uri("/charges/order-7").attribute(FencingTokenInterceptor.TOKEN_ATTRIBUTE, lease.token())
                .body(charge).retrieve().toBodilessEntity();
    }

    static void webClient(Lease lease, String charge) {
        WebClient payments = WebClient.builder().baseUrl("http://payments")
                .filter(FencingExchangeFilter.fromContext()).build();
        payments.put().uri("/charges/order-7").attribute(FencingExchangeFilter.TOKEN_ATTRIBUTE, lease.token())
                .bodyValue(charge).retrieve().toBodilessEntity().block();
    }

    static void jdkClient(Lease lease) throws Exception {
        FencedHttpClient http = FencedHttpClient.of(HttpClient.newHttpClient());
        HttpRequest put = HttpRequest.newBuilder(URI.create("http://payments/charges/order-7"))
                .PUT(HttpRequest.BodyPublishers.ofString("30.00")).build();
        HttpResponse<String> response = http.send(lease.token(), put, HttpResponse.BodyHandlers.ofString());
    }

    // README.md: the caller
    static void readmeCaller(LockProvider locks, String charge) throws InterruptedException {
        RestClient payments = RestClient.builder().baseUrl("http://payments")
                .requestInterceptor(FencingTokenInterceptor.fromContext()).build();   // sends the token in scope
        try (Lease lease = locks.acquire("order-7", LeaseOptions.ofTtl(Duration.ofSeconds(30)));
                FencingContext.Scope scope = FencingContext.bind(lease)) {
            payments.put().uri("/charges/order-7").body(charge).retrieve().toBodilessEntity();
        }   // a zombie's call: StaleTokenException here, as from a local store
    }
}
