package dev.fencing.propagation.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import dev.fencing.testkit.InMemoryFencedStore;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The filter without Spring: a plain servlet on embedded Tomcat writes to its fenced store with the
 * token the filter read; the store's refusal, thrown out of the servlet, is answered 409 by the filter.
 */
class PlainServletTest {

    private static final FencedStore STORE = InMemoryFencedStore.create();
    private static Tomcat tomcat;
    private static String base;
    private final HttpClient http = HttpClient.newHttpClient();

    static final class ItemServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPut(HttpServletRequest request, HttpServletResponse response) throws IOException {
            FencingToken token = FencingTokenFilter.tokenOf(request).orElseThrow();
            STORE.write(token, request.getParameter("key"), new String(request.getInputStream().readAllBytes(),
                    StandardCharsets.UTF_8));
            response.setStatus(204);
        }
    }

    @BeforeAll
    static void start() throws LifecycleException, IOException {
        tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("tomcat").toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", new File(".").getAbsolutePath());
        Tomcat.addServlet(context, "items", new ItemServlet());
        context.addServletMappingDecoded("/items", "items");
        FilterDef filter = new FilterDef();
        filter.setFilterName("fencing");
        filter.setFilter(FencingTokenFilter.builder().requireToken().build());
        context.addFilterDef(filter);
        FilterMap map = new FilterMap();
        map.setFilterName("fencing");
        map.addURLPattern("/*");
        context.addFilterMap(map);
        tomcat.start();
        base = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
    }

    @AfterAll
    static void stop() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
    }

    private HttpResponse<String> put(String key, String header, String value) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/items?key=" + key))
                .PUT(HttpRequest.BodyPublishers.ofString(value));
        if (header != null) {
            request.header(TokenHeader.HTTP_HEADER, header);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theStoresRefusalThrownByTheServletIsAnswered409WithTheRefusal() throws Exception {
        assertThat(put("a", "5; lock=plain", "new").statusCode()).isEqualTo(204);

        HttpResponse<String> zombie = put("a", "4; lock=plain", "old");
        assertThat(zombie.statusCode()).isEqualTo(409);
        assertThat(zombie.headers().firstValue(TokenRefusal.HTTP_HEADER))
                .hasValue("stale; token=4; lock=plain; key=a; mark=5; policy=MONOTONIC");
        assertThat(zombie.body()).contains(TokenRefusal.STALE_TYPE);
        assertThat(STORE.read("a").orElseThrow().value()).isEqualTo("new");
    }

    @Test
    void missingAndRepeatedTokensAreRefusedBeforeTheServletRuns() throws Exception {
        assertThat(put("b", null, "v").statusCode()).isEqualTo(428);
        HttpResponse<String> twice = http.send(HttpRequest.newBuilder(URI.create(base + "/items?key=b"))
                .header(TokenHeader.HTTP_HEADER, "5; lock=plain").header(TokenHeader.HTTP_HEADER, "6; lock=plain")
                .PUT(HttpRequest.BodyPublishers.ofString("v")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(twice.statusCode()).isEqualTo(400);
        assertThat(twice.body()).contains("was sent 2 times");
        assertThat(STORE.highWaterMark("b")).isEmpty();
    }
}
