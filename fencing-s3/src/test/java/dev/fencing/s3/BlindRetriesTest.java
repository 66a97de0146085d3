package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.spi.FailedWrite;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The SDK's failures mapped onto core's {@link FailedWrite}: which are unclear, which are sent again. */
class BlindRetriesTest {

    @Test
    void aClientFailureWithoutReplyIsUnclearAndNotSentAgain() {
        SdkClientException reset = SdkClientException.create("Unable to execute HTTP request",
                new SocketException("Connection reset"));
        SdkClientException timeout = SdkClientException.create("timed out", new SocketTimeoutException("Read timed out"));
        for (SdkClientException failure : new SdkClientException[] {reset, timeout}) {
            assertThat(BlindRetries.verdict(failure)).isEqualTo(FailedWrite.UNCLEAR);
            assertThat(BlindRetries.unclear(failure)).isTrue();
            assertThat(BlindRetries.provablyNotApplied(failure)).isFalse();
        }
    }

    @Test
    void aRefusedConnectionIsNotSentAndSentAgain() {
        SdkClientException refused = SdkClientException.create("Unable to execute HTTP request",
                new UncheckedIOException(new ConnectException("Connection refused")));
        assertThat(BlindRetries.verdict(refused)).isEqualTo(FailedWrite.NOT_SENT);
        assertThat(BlindRetries.unclear(refused)).isFalse();
        assertThat(BlindRetries.provablyNotApplied(refused)).isTrue();
    }

    @Test
    void anAnswerIsUnclearOnlyForAServerErrorAndSentAgainOnlyForAThrottleBelow500() {
        assertThat(BlindRetries.unclear(answer(500, "InternalError"))).isTrue();
        assertThat(BlindRetries.provablyNotApplied(answer(500, "InternalError"))).isFalse();
        assertThat(BlindRetries.unclear(answer(503, "ThrottlingException"))).isTrue();
        assertThat(BlindRetries.provablyNotApplied(answer(503, "ThrottlingException"))).isFalse();

        assertThat(BlindRetries.verdict(answer(400, "ThrottlingException"))).isEqualTo(FailedWrite.THROTTLED);
        assertThat(BlindRetries.unclear(answer(400, "ThrottlingException"))).isFalse();
        assertThat(BlindRetries.provablyNotApplied(answer(400, "ThrottlingException"))).isTrue();

        for (int status : new int[] {400, 404, 409, 412}) {
            assertThat(BlindRetries.verdict(answer(status, "Refused"))).isEqualTo(FailedWrite.NOT_APPLIED);
            assertThat(BlindRetries.unclear(answer(status, "Refused"))).isFalse();
            assertThat(BlindRetries.provablyNotApplied(answer(status, "Refused"))).isFalse();
        }
    }

    @Test
    void aFailureOfTheCallersOwnCodeIsNeitherUnclearNorSentAgain() {
        IllegalStateException own = new IllegalStateException("an interceptor failed");
        assertThat(BlindRetries.verdict(own)).isNull();
        assertThat(BlindRetries.unclear(own)).isFalse();
        assertThat(BlindRetries.provablyNotApplied(own)).isFalse();
    }

    private static S3Exception answer(int status, String code) {
        return (S3Exception) S3Exception.builder().statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).build()).build();
    }
}
