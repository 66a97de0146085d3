package dev.fencing.azure.blob;

import com.azure.core.http.HttpHeader;
import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpHeaders;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.core.util.BinaryData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.Charset;
import java.util.Locale;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A proxy that spells metadata header names in another case: every response's
 * {@code x-ms-meta-fencingtoken} reaches the SDK as {@code x-ms-meta-FENCINGTOKEN}, and the SDK
 * hands the blob's metadata over as {@code FENCINGTOKEN}. HTTP header names carry no case, and
 * Azure compares metadata names without it.
 */
final class RecasedMetadata implements HttpPipelinePolicy {

    private static final String PREFIX = "x-ms-meta-";

    @Override
    public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
        return next.process().map(Recased::new);
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
        return new Recased(next.processSync());
    }

    /** {@code response} with its metadata header names upper-cased after the prefix. */
    private static final class Recased extends HttpResponse {
        private final HttpResponse inner;
        private final HttpHeaders headers = new HttpHeaders();

        Recased(HttpResponse inner) {
            super(inner.getRequest());
            this.inner = inner;
            for (HttpHeader header : inner.getHeaders()) {
                String name = header.getName();
                if (name.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
                    name = PREFIX + name.substring(PREFIX.length()).toUpperCase(Locale.ROOT);
                }
                headers.set(HttpHeaderName.fromString(name), header.getValuesList());
            }
        }

        @Override
        public int getStatusCode() {
            return inner.getStatusCode();
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
            return inner.getBody();
        }

        @Override
        public BinaryData getBodyAsBinaryData() {
            return inner.getBodyAsBinaryData();
        }

        @Override
        public Mono<byte[]> getBodyAsByteArray() {
            return inner.getBodyAsByteArray();
        }

        @Override
        public Mono<String> getBodyAsString() {
            return inner.getBodyAsString();
        }

        @Override
        public Mono<String> getBodyAsString(Charset charset) {
            return inner.getBodyAsString(charset);
        }

        @Override
        public Mono<InputStream> getBodyAsInputStream() {
            return inner.getBodyAsInputStream();
        }

        @Override
        public void writeBodyTo(WritableByteChannel channel) throws IOException {
            inner.writeBodyTo(channel);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
