package dev.fencing.propagation.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.AllowedLocks;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.testkit.InMemoryFencedStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The filter's declaration against a plain servlet application on embedded Tomcat, by an
 * adversary's review: Tomcat maps a request to a servlet by its normalized, decoded path, so the
 * declaration must be matched against that path, not the raw request URI (which it once was).
 *
 * <p>Declaration: {@code /orders/**} may be fenced by {@code order-*}, {@code /admin/**} by
 * {@code admin-scheduler} only, {@code /public/**} by {@code public-*}.
 */
class DeclaredPathsServletAdversaryTest {

    static final AllowedLocks DECLARED = AllowedLocks.builder()
            .forPath("/orders/**", "order-*")
            .forPath("/admin/**", "admin-scheduler")
            .forPath("/public/**", "public-*")
            .build();

    static final FencedStore STORE = InMemoryFencedStore.create();
    /** Every token the admin servlet was handed. */
    static final List<FencingToken> ADMIN_SAW = new CopyOnWriteArrayList<>();

    private static Tomcat tomcat;
    private static int port;

    static final class Writer extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final List<FencingToken> saw;

        Writer(List<FencingToken> saw) {
            this.saw = saw;
        }

        @Override
        protected void doPut(HttpServletRequest request, HttpServletResponse response) throws IOException {
            FencingToken token = FencingTokenFilter.tokenOf(request).orElseThrow();
            saw.add(token);
            STORE.write(token, request.getParameter("key"),
                    new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            response.setStatus(204);
        }
    }

    /** A public endpoint that hands the work to the admin endpoint, as applications forward. */
    static final class Forwarder extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPut(HttpServletRequest request, HttpServletResponse response) throws IOException, ServletException {
            request.getRequestDispatcher("/admin/items").forward(request, response);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("tomcat-adv").toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", new File(".").getAbsolutePath());
        Tomcat.addServlet(context, "admin", new Writer(ADMIN_SAW));
        context.addServletMappingDecoded("/admin/*", "admin");
        Tomcat.addServlet(context, "orders", new Writer(new CopyOnWriteArrayList<>()));
        context.addServletMappingDecoded("/orders/*", "orders");
        Tomcat.addServlet(context, "forwarder", new Forwarder());
        context.addServletMappingDecoded("/public/forward", "forwarder");
        FilterDef filter = new FilterDef();
        filter.setFilterName("fencing");
        filter.setFilter(FencingTokenFilter.builder().requireToken().allowedLocks(DECLARED).build());
        context.addFilterDef(filter);
        FilterMap map = new FilterMap();
        map.setFilterName("fencing");
        map.addURLPattern("/*");
        // admission on the request and on forwards: the forwarded-to path has its own declaration
        map.setDispatcher(DispatcherType.REQUEST.name());
        map.setDispatcher(DispatcherType.FORWARD.name());
        context.addFilterMap(map);
        tomcat.start();
        port = tomcat.getConnector().getLocalPort();
    }

    @AfterAll
    static void stop() throws Exception {
        tomcat.stop();
        tomcat.destroy();
    }

    /** A PUT sent byte for byte as written (no client-side normalization); the status line. */
    static String rawPut(String pathAndQuery, FencingToken token, String body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("PUT " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + TokenHeader.HTTP_HEADER + ": " + TokenHeader.format(token) + "\r\nContent-Type: text/plain\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            return answer.lines().findFirst().orElse("");
        }
    }

    static int put(HttpClient client, String path, String key, FencingToken token) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path + "?key=" + key))
                .header(TokenHeader.HTTP_HEADER, TokenHeader.format(token)).PUT(HttpRequest.BodyPublishers.ofString("v"))
                .build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    /**
     * An order worker (token of order-1, declared for /orders/** only) spells the admin path
     * through /orders/: the filter reads "/orders/..;/admin/items" (an order path), Tomcat serves
     * /admin/items. Its token reaches the admin servlet, creates the item bound to its own lock,
     * and the real admin holder is then refused on its own item.
     */
    @Test
    void anUndeclaredLockNeverReachesTheAdminServletThroughADotDotSegment() throws Exception {
        String key = "adv-" + UUID.randomUUID().toString().substring(0, 8);
        FencingToken orderWorker = FencingToken.of("order-1", 1);
        String status = rawPut("/orders/..;/admin/items?key=" + key, orderWorker, "from the order worker");

        HttpClient admin = HttpClient.newHttpClient();
        int adminStatus = put(admin, "/admin/items", key, FencingToken.of("admin-scheduler", 5));

        assertThat(ADMIN_SAW).as("tokens handed to the /admin servlet (status to the order worker: %s;"
                + " the admin holder's own write then answered %s)", status, adminStatus)
                .noneMatch(t -> t.resource().startsWith("order-"));
    }

    /** The same with the dots percent-encoded. */
    @Test
    void anUndeclaredLockNeverReachesTheAdminServletThroughAnEncodedDotDotSegment() throws Exception {
        String key = "adv-" + UUID.randomUUID().toString().substring(0, 8);
        String status = rawPut("/orders/%2e%2e/admin/items?key=" + key, FencingToken.of("order-2", 1), "x");
        assertThat(ADMIN_SAW).as("tokens handed to the /admin servlet (status to the order worker: %s)", status)
                .noneMatch(t -> t.resource().equals("order-2"));
    }

    /**
     * The filter is mapped for FORWARD: a request admitted at /public/forward (public-7 is declared
     * there) is forwarded to /admin/items, whose declaration allows admin-scheduler only. The
     * filter sees its "admitted" attribute on the FORWARD dispatch and skips admission.
     */
    @Test
    void aForwardToAPathWithAStricterDeclarationIsHeldToIt() throws Exception {
        String key = "adv-" + UUID.randomUUID().toString().substring(0, 8);
        int status = put(HttpClient.newHttpClient(), "/public/forward", key, FencingToken.of("public-7", 1));
        assertThat(ADMIN_SAW).as("tokens handed to the /admin servlet (status %s)", status)
                .noneMatch(t -> t.resource().equals("public-7"));
    }

    /**
     * The admin holder itself, with a path parameter Tomcat strips before mapping (a jsessionid
     * rewritten into the URL): Tomcat serves /admin/items, the filter refuses the declared lock.
     */
    @Test
    void theDeclaredLockIsAdmittedOnEverySpellingTheContainerServesAsTheSamePath() throws Exception {
        String key = "adv-" + UUID.randomUUID().toString().substring(0, 8);
        FencingToken holder = FencingToken.of("admin-scheduler", 9);
        String status = rawPut("/admin;jsessionid=0123ABCD/items?key=" + key, holder, "v");
        assertThat(status).as("the declared holder's write to /admin/items").contains(" 204");
    }
}
