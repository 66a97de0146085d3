package dev.fencing.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobContainerClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder refuses bad settings before any I/O, naming them; building sends no request. */
class AzureBlobFencedStoreBuilderTest {

    private static final BlobContainerClient NOWHERE = new BlobContainerClientBuilder()
            .endpoint("http://127.0.0.1:1/devstoreaccount1/c")
            .credential(new StorageSharedKeyCredential("devstoreaccount1", "a2V5")).buildClient();

    @Test
    void aNullContainerIsRefused() {
        assertThatThrownBy(() -> AzureBlobFencedStore.builder(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("container");
    }

    @Test
    void aPrefixLongerThanABlobNameAllowsIsRefused() {
        AzureBlobFencedStore.Builder builder = AzureBlobFencedStore.builder(NOWHERE);
        assertThat(builder.keyPrefix("p".repeat(1023))).isSameAs(builder);
        assertThatThrownBy(() -> builder.keyPrefix("p".repeat(1024))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix must be at most 1023 characters").hasMessageContaining("got 1024");
        assertThatThrownBy(() -> builder.keyPrefix(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix must not be null");
    }

    @Test
    void aRequestTimeoutOutOfRangeIsRefused() {
        AzureBlobFencedStore.Builder builder = AzureBlobFencedStore.builder(NOWHERE);
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ofMillis(99)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout");
    }

    @Test
    void buildingSendsNoRequest() {
        assertThat(AzureBlobFencedStore.builder(NOWHERE).keyPrefix("p/").build()).isNotNull();
    }
}
