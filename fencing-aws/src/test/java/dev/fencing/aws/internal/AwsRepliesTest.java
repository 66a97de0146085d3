package dev.fencing.aws.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.spi.FailedWrite;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;

/** The SDK's failures mapped onto core's {@link FailedWrite}: which are unclear, which are sent again. */
class AwsRepliesTest {

    @Test
    void aClientFailureWithoutReplyIsUnclearAndNotSentAgain() {
        SdkClientException reset = SdkClientException.create("Unable to execute HTTP request",
                new SocketException("Connection reset"));
        SdkClientException timeout = SdkClientException.create("timed out", new SocketTimeoutException("Read timed out"));
        for (SdkClientException failure : new SdkClientException[] {reset, timeout}) {
            assertThat(AwsReplies.verdict(failure)).isEqualTo(FailedWrite.UNCLEAR);
            assertThat(AwsReplies.unclear(failure)).isTrue();
            assertThat(AwsReplies.provablyNotApplied(failure)).isFalse();
        }
    }

    @Test
    void aRefusedConnectionIsNotSentAndSentAgain() {
        SdkClientException refused = SdkClientException.create("Unable to execute HTTP request",
                new UncheckedIOException(new ConnectException("Connection refused")));
        assertThat(AwsReplies.verdict(refused)).isEqualTo(FailedWrite.NOT_SENT);
        assertThat(AwsReplies.unclear(refused)).isFalse();
        assertThat(AwsReplies.provablyNotApplied(refused)).isTrue();
    }

    @Test
    void anAnswerIsUnclearOnlyForAServerErrorAndSentAgainOnlyForAThrottleBelow500() {
        assertThat(AwsReplies.unclear(answer(500, "InternalError"))).isTrue();
        assertThat(AwsReplies.provablyNotApplied(answer(500, "InternalError"))).isFalse();
        assertThat(AwsReplies.unclear(answer(503, "ThrottlingException"))).isTrue();
        assertThat(AwsReplies.provablyNotApplied(answer(503, "ThrottlingException"))).isFalse();

        assertThat(AwsReplies.verdict(answer(400, "ThrottlingException"))).isEqualTo(FailedWrite.THROTTLED);
        assertThat(AwsReplies.unclear(answer(400, "ThrottlingException"))).isFalse();
        assertThat(AwsReplies.provablyNotApplied(answer(400, "ThrottlingException"))).isTrue();

        for (int status : new int[] {400, 404, 409, 412}) {
            assertThat(AwsReplies.verdict(answer(status, "Refused"))).isEqualTo(FailedWrite.NOT_APPLIED);
            assertThat(AwsReplies.unclear(answer(status, "Refused"))).isFalse();
            assertThat(AwsReplies.provablyNotApplied(answer(status, "Refused"))).isFalse();
        }
    }

    @Test
    void aFailureOfTheCallersOwnCodeIsNeitherUnclearNorSentAgain() {
        IllegalStateException own = new IllegalStateException("an interceptor failed");
        assertThat(AwsReplies.verdict(own)).isNull();
        assertThat(AwsReplies.unclear(own)).isFalse();
        assertThat(AwsReplies.provablyNotApplied(own)).isFalse();
    }

    @Test
    void aFailedFuturesWrapperIsLookedThrough() {
        SdkClientException reset = SdkClientException.create("Unable to execute HTTP request",
                new SocketException("Connection reset"));
        assertThat(AwsReplies.unclear(new CompletionException(reset))).isTrue();
        assertThat(AwsReplies.unclear(new CompletionException(answer(412, "PreconditionFailed")))).isFalse();
    }

    @Test
    void writeIdsAreUniqueHex() {
        assertThat(AwsReplies.newWriteId()).matches("[0-9a-f]{32}").isNotEqualTo(AwsReplies.newWriteId());
    }

    private static AwsServiceException answer(int status, String code) {
        return AwsServiceException.builder().statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).build()).build();
    }
}
