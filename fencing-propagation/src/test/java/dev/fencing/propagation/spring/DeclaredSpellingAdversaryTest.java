package dev.fencing.propagation.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.propagation.TokenHeader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * ItemsApp's declaration allows order-* on /declared/orders/**. Spring MVC routes a
 * request by its decoded path without path parameters; the filter matches the declaration against
 * the raw URI. The billing-scheduler (declared on every path) shows where Spring MVC routes each
 * spelling; an order holder sending the very same spelling is then refused as foreign.
 */
class DeclaredSpellingAdversaryTest {

    private static String rawPut(String pathAndQuery, FencingToken token) throws Exception {
        URI base = URI.create(ItemsApp.baseUrl());
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("PUT " + pathAndQuery + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\n"
                    + TokenHeader.HTTP_HEADER + ": " + TokenHeader.format(token) + "\r\nContent-Length: 1\r\n\r\nv")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            return answer.lines().findFirst().orElse("") + " "
                    + answer.lines().filter(l -> l.startsWith("Fencing-Refusal")).findFirst().orElse("");
        }
    }

    private static void check(String spelling) throws Exception {
        HttpItemsClient reader = new HttpItemsClient(ItemsApp.baseUrl(), Policy.MONOTONIC);
        String scheduledKey = "adv-sched-" + UUID.randomUUID().toString().substring(0, 8);
        String billing = rawPut(spelling + "?key=" + scheduledKey, FencingToken.of("billing-scheduler", 3));
        assertThat(reader.read(scheduledKey)).as("Spring MVC serves %s with the declared-items handler (%s)", spelling,
                billing).isPresent();

        String orderKey = "adv-order-" + UUID.randomUUID().toString().substring(0, 8);
        String order = rawPut(spelling + "?key=" + orderKey, FencingToken.of("order-17", 2));
        assertThat(reader.read(orderKey)).as("order-17 (declared for /declared/orders/**) writing through %s was"
                + " answered: %s", spelling, order).isPresent();
    }

    @Test
    void aMatrixParameterSpellingStillAdmitsTheDeclaredOrderLock() throws Exception {
        check("/declared/orders;v=2/items");
    }

    @Test
    void aPercentEncodedSpellingStillAdmitsTheDeclaredOrderLock() throws Exception {
        check("/declared/%6Frders/items");
    }
}
