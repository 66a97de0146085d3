package dev.fencing.s3;

import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import java.util.UUID;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Attack on guarantee 9's "names compare byte for byte": {@code Checks.requireName} accepts a lock
 * name with an unpaired surrogate — what cutting "order-😀" at 7 chars gives, {@code "order-\uD83D"}
 * — which has no UTF-8 bytes. {@code Metadata.encodeResource} (URLEncoder, UTF-8 with replacement)
 * stores it as {@code order-%3F}, i.e. as lock {@code "order-?"}: the two distinct names share the
 * key, and the lock that bound the key is refused as "foreign" on its own key by its next write from
 * a store that did not write it last (a restarted process: no cached state).
 * Two stores, two clients, as two processes.
 */
class LockNamesWithoutUtf8IT {

    @Test
    void aLockNameWithAnUnpairedSurrogateIsStoredAsAnotherLocksName() {
        String bucket = S3.newBucket(S3.client());
        FencedStore first = S3FencedStore.create(S3.client(), bucket, "", Policy.MONOTONIC, FencingListener.NONE);
        FencedStore second = S3FencedStore.create(S3.client(), bucket, "", Policy.MONOTONIC, FencingListener.NONE);
        FencedStore restarted = S3FencedStore.create(S3.client(), bucket, "", Policy.MONOTONIC, FencingListener.NONE);
        String key = "k-" + UUID.randomUUID();
        String cut = "order-\uD83D\uDE00".substring(0, 7); // "order-\uD83D"

        first.write(FencingToken.of(cut, 5), key, "bound by 'order-\\uD83D'");
        Throwable ownNextWrite = catchThrowable(
                () -> restarted.write(FencingToken.of(cut, 6), key, "its own next write, from a cold cache"));
        Throwable otherLock = catchThrowable(() -> second.write(FencingToken.of("order-?", 7), key, "lock 'order-?'"));

        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(escaped(ownNextWrite)).as("the next write of the lock that bound the key (a store without its ETag cache)").isNull();
        softly.assertThat(escaped(otherLock)).as("a token of lock 'order-?' on a key bound to lock 'order-\\uD83D'")
                .startsWith(ForeignTokenException.class.getSimpleName());
        softly.assertAll();
    }

    /** The outcome as ASCII: a lone surrogate in a message cuts the test report short. */
    private static String escaped(Throwable outcome) {
        if (outcome == null) {
            return null;
        }
        StringBuilder text = new StringBuilder(outcome.getClass().getSimpleName()).append(": ");
        outcome.getMessage().chars()
                .forEach(c -> text.append(c < 128 ? String.valueOf((char) c) : String.format("\\u%04X", c)));
        return text.toString();
    }
}
