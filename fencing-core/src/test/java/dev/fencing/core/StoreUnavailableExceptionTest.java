package dev.fencing.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class StoreUnavailableExceptionTest {

    @Test
    void namesTheStoreTheOperationTheKeyAndTheCause() {
        SocketTimeoutException cause = new SocketTimeoutException("Read timed out");

        StoreUnavailableException e = StoreUnavailableException.of("S3 at http://127.0.0.1:9090", "GetObject",
                "orders/7", cause);

        assertThat(e).isInstanceOf(FencingException.class).hasCause(cause);
        assertThat(e.store()).isEqualTo("S3 at http://127.0.0.1:9090");
        assertThat(e.key()).isEqualTo("orders/7");
        assertThat(e.getMessage()).startsWith("S3 at http://127.0.0.1:9090 did not answer the GetObject of 'orders/7'")
                .contains("SocketTimeoutException: Read timed out").contains("nothing was written by this call");
    }

    @Test
    void saysNoReplyWithoutACause() {
        assertThat(StoreUnavailableException.of("Redis at redis://h:6379", "read", "k", null).getMessage())
                .contains("(no reply)");
    }
}
