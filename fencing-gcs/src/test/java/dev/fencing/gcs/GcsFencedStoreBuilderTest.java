package dev.fencing.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder refuses bad settings before any I/O, naming them; building sends no request. */
class GcsFencedStoreBuilderTest {

    private static final Storage NOWHERE = StorageOptions.http().setHost("http://127.0.0.1:1").setProjectId("p")
            .setCredentials(NoCredentials.getInstance()).build().getService();

    @Test
    void aNullClientOrABadBucketIsRefused() {
        assertThatThrownBy(() -> GcsFencedStore.builder(null, "b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("storage must not be null");
        assertThatThrownBy(() -> GcsFencedStore.builder(NOWHERE, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket must not be blank");
        assertThatThrownBy(() -> GcsFencedStore.builder(NOWHERE, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket must not be null");
    }

    @Test
    void aPrefixLongerThanAnObjectNameAllowsIsRefused() {
        GcsFencedStore.Builder builder = GcsFencedStore.builder(NOWHERE, "b");
        assertThat(builder.keyPrefix("p".repeat(1023))).isSameAs(builder);
        assertThatThrownBy(() -> builder.keyPrefix("é".repeat(512))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix must be at most 1023 bytes of UTF-8").hasMessageContaining("got 1024");
        assertThatThrownBy(() -> builder.keyPrefix(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix must not be null");
        assertThatThrownBy(() -> builder.keyPrefix("a\nb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix must not contain a carriage return or a line feed");
        assertThatThrownBy(() -> builder.keyPrefix(".well-known/acme-challenge/x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GCS refuses");
    }

    @Test
    void aRequestTimeoutOutOfRangeIsRefused() {
        GcsFencedStore.Builder builder = GcsFencedStore.builder(NOWHERE, "b");
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ofMillis(99)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> builder.requestTimeout(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout");
    }

    @Test
    void buildingSendsNoRequest() {
        assertThat(GcsFencedStore.builder(NOWHERE, "b").keyPrefix("p/").requestTimeout(Duration.ofSeconds(1)).build())
                .isNotNull();
    }
}
