package dev.fencing.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.PartitionProxy;
import java.net.URI;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Adversarial review of issue 46 (fencing-gcs) and issue 50 on GCS: the attacks tried, on the testbench.
 * Chain for the silent cases: client → ReplyDroppingProxy → PartitionProxy → testbench; the hook that
 * runs when the upload's reply reaches the dropping proxy cuts the link, so the upload landed, its reply
 * is lost and the read that should settle it goes unanswered.
 */
class AttackGcsIT {

    private static final String UPLOAD = "POST /upload/";

    private final String bucket = Gcs.newBucket();
    private PartitionProxy link;
    private ReplyDroppingProxy dropping;
    private Storage lossyClient;

    @AfterEach
    void close() throws Exception {
        if (link != null) {
            link.heal();
        }
        if (lossyClient != null) {
            lossyClient.close();
        }
        if (dropping != null) {
            dropping.close();
        }
        if (link != null) {
            link.close();
        }
    }

    private FencedStore direct(Policy policy) {
        return GcsFencedStore.builder(Gcs.client(), bucket).policy(policy).build();
    }

    private FencedStore lossy(RecordingListener events) {
        URI server = URI.create(Gcs.server().endpoint());
        link = PartitionProxy.start(server.getHost(), server.getPort());
        dropping = ReplyDroppingProxy.start("127.0.0.1", link.port());
        lossyClient = Gcs.client(dropping.httpEndpoint());
        return GcsFencedStore.builder(lossyClient, bucket).requestTimeout(Duration.ofSeconds(1)).listener(events).build();
    }

    private static String key(String name) {
        return name + "-" + UUID.randomUUID();
    }

    // ---- issue 50: a landed upload, then silence ----

    @Test
    void aWriteThatLandedAndWhoseSettleReadTimesOutIsUnknownReportedOnce() {
        RecordingListener events = new RecordingListener();
        FencedStore store = lossy(events);
        String key = key("landed-write");
        store.write(FencingToken.of("lock", 4), key, "before");

        dropping.dropReplyTo(UPLOAD, link::cut);
        Throwable thrown = catchThrowable(() -> store.write(FencingToken.of("lock", 5), key, "after"));
        link.heal();

        assertThat(direct(Policy.MONOTONIC).read(key)).contains(new StoredValue(key, "after", 5));
        assertThat(thrown).isInstanceOf(WriteOutcomeUnknownException.class);
        assertThat(events.writeFailures()).hasSize(1);
    }

    @Test
    void anUpdateThatLandedAndWhoseSettleReadTimesOutIsUnknown() {
        FencedStore store = lossy(new RecordingListener());
        String key = key("landed-update");
        store.write(FencingToken.of("lock", 4), key, "41");

        dropping.dropReplyTo(UPLOAD, link::cut);
        Throwable thrown = catchThrowable(() -> store.update(FencingToken.of("lock", 5), key,
                v -> Integer.toString(Integer.parseInt(v.orElseThrow()) + 1)));
        link.heal();

        assertThat(direct(Policy.MONOTONIC).read(key)).contains(new StoredValue(key, "42", 5));
        assertThat(thrown).isInstanceOf(WriteOutcomeUnknownException.class);
    }

    @Test
    void aDeleteThatLandedAndWhoseSettleReadTimesOutIsUnknownAndTheMarkHolds() {
        FencedStore store = lossy(new RecordingListener());
        String key = key("landed-delete");
        store.write(FencingToken.of("lock", 4), key, "before");

        dropping.dropReplyTo(UPLOAD, link::cut);
        Throwable thrown = catchThrowable(() -> store.delete(FencingToken.of("lock", 5), key));
        link.heal();

        assertThat(thrown).isInstanceOf(WriteOutcomeUnknownException.class);
        FencedStore check = direct(Policy.MONOTONIC);
        assertThat(check.read(key)).isEmpty();
        assertThat(check.highWaterMark(key)).isEqualTo(OptionalLong.of(5));
        assertThatThrownBy(() -> check.write(FencingToken.of("lock", 4), key, "zombie"))
                .isInstanceOf(StaleTokenException.class);
    }

    // ---- issue 46: names, marks, locks ----

    /** Characters a URL path could swallow: each key is its own object and keeps its own mark. */
    @ParameterizedTest(name = "[{index}] ''{0}'' vs ''{1}''")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "k?ifGenerationMatch=0|k", "k#frag|k", "k;v|k", "k?|k", "k%3F|k?", "k\\x|k/x", "~k|%7Ek",
        "k/..|k", "k%00|k"
    })
    void keysAUrlCouldShortenAreTheirOwnObjects(String one, String other) {
        FencedStore holder = direct(Policy.MONOTONIC);
        FencedStore zombie = direct(Policy.MONOTONIC);
        String prefix = key("url") + "/";
        holder.write(FencingToken.of("lock", 9), prefix + one, "nine");
        zombie.write(FencingToken.of("lock", 1), prefix + other, "one");
        assertThat(holder.read(prefix + one)).contains(new StoredValue(prefix + one, "nine", 9));
        assertThat(zombie.read(prefix + other)).contains(new StoredValue(prefix + other, "one", 1));
        assertThat(Gcs.client().get(BlobId.of(bucket, prefix + one)).getName()).isEqualTo(prefix + one);
    }

    /** Two stores whose prefixes make one object name: one object, one mark — neither bypasses the other. */
    @Test
    void prefixesThatCollideShareOneMark() {
        String base = key("prefix");
        FencedStore a = GcsFencedStore.builder(Gcs.client(), bucket).keyPrefix(base + "/a/").build();
        FencedStore b = GcsFencedStore.builder(Gcs.client(), bucket).keyPrefix(base + "/").build();
        a.write(FencingToken.of("lock", 7), "k", "seven");
        assertThatThrownBy(() -> b.write(FencingToken.of("lock", 6), "a/k", "six")).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> b.delete(FencingToken.of("lock", 6), "a/k")).isInstanceOf(StaleTokenException.class);
        assertThat(a.read("k")).contains(new StoredValue("k", "seven", 7));
    }

    /** Another lock's token, however large, cannot write, delete, update or tombstone a bound key, before or after a delete. */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void anotherLocksTokenIsForeignOnEveryPath(Policy policy) {
        FencedStore owner = direct(policy);
        FencedStore thief = direct(policy);
        String key = key("foreign");
        owner.write(FencingToken.of("orders", 3), key, "mine");
        FencingToken other = FencingToken.of("payments", Long.MAX_VALUE);
        assertThatThrownBy(() -> thief.write(other, key, "stolen")).isInstanceOf(ForeignTokenException.class);
        assertThatThrownBy(() -> thief.delete(other, key)).isInstanceOf(ForeignTokenException.class);
        assertThatThrownBy(() -> thief.update(other, key, v -> "stolen")).isInstanceOf(ForeignTokenException.class);
        owner.delete(FencingToken.of("orders", 4), key);
        assertThatThrownBy(() -> thief.write(other, key, "stolen")).isInstanceOf(ForeignTokenException.class);
        assertThatThrownBy(() -> thief.update(other, key, v -> "stolen")).isInstanceOf(ForeignTokenException.class);
        assertThatThrownBy(() -> thief.delete(other, key)).isInstanceOf(ForeignTokenException.class);
        assertThat(owner.highWaterMark(key)).isEqualTo(OptionalLong.of(4));
        assertThat(owner.read(key)).isEmpty();
    }

    /** A second delete, an update of a tombstone, an empty value: the mark never goes backwards. */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void theMarkNeverGoesBackwards(Policy policy) {
        FencedStore a = direct(policy);
        FencedStore b = direct(policy);
        String key = key("mark");
        a.write(FencingToken.of("lock", 5), key, "");
        a.delete(FencingToken.of("lock", 6), key);
        assertThatThrownBy(() -> b.delete(FencingToken.of("lock", 5), key)).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> b.update(FencingToken.of("lock", 5), key, v -> "x")).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> b.write(FencingToken.of("lock", 5), key, "")).isInstanceOf(StaleTokenException.class);
        assertThat(b.highWaterMark(key)).isEqualTo(OptionalLong.of(6));
        StoredValue revived = b.update(FencingToken.of("lock", 7), key, v -> v.isPresent() ? "saw a value" : "absent");
        assertThat(revived.value()).isEqualTo("absent");
        assertThat(a.read(key)).contains(new StoredValue(key, "absent", 7));
    }
}
