package dev.fencing.azure.blob;

import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpHeaders;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A gateway that lets the next {@code armed} {@code PUT}s reach the server, then answers the
 * client 500 InternalError instead of the server's reply: the upload landed, the client is told it
 * failed.
 */
final class ServerErrorAfterPut implements HttpPipelinePolicy {

    final AtomicInteger armed = new AtomicInteger();
    final AtomicInteger replaced = new AtomicInteger();

    @Override
    public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
        return next.process().map(response -> replace(context, response));
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
        return replace(context, next.processSync());
    }

    private HttpResponse replace(HttpPipelineCallContext context, HttpResponse response) {
        if (context.getHttpRequest().getHttpMethod() != HttpMethod.PUT || armed.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            return response;
        }
        response.close();
        replaced.incrementAndGet();
        return new Error500(response);
    }

    private static final class Error500 extends HttpResponse {
        private final HttpHeaders headers = new HttpHeaders().set(HttpHeaderName.fromString("x-ms-error-code"),
                "InternalError").set(HttpHeaderName.CONTENT_LENGTH, "0");

        Error500(HttpResponse landed) {
            super(landed.getRequest());
        }

        @Override
        public int getStatusCode() {
            return 500;
        }

        @Override
        @Deprecated
        public String getHeaderValue(String name) {
            return headers.getValue(HttpHeaderName.fromString(name));
        }

        @Override
        public HttpHeaders getHeaders() {
            return headers;
        }

        @Override
        public Flux<ByteBuffer> getBody() {
            return Flux.empty();
        }

        @Override
        public Mono<byte[]> getBodyAsByteArray() {
            return Mono.just(new byte[0]);
        }

        @Override
        public Mono<String> getBodyAsString() {
            return Mono.just("");
        }

        @Override
        public Mono<String> getBodyAsString(Charset charset) {
            return Mono.just("");
        }
    }
}
