package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.spi.FailedWrite;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/** The SDK's failures mapped onto core's {@link FailedWrite}: which are unclear, which are sent again. */
class LostRepliesTest {

    @Test
    void aClientFailureWithoutReplyIsUnclearAndNotSentAgain() {
        SdkClientException reset = SdkClientException.create("Unable to execute HTTP request",
                new SocketException("Connection reset"));
        SdkClientException timeout = SdkClientException.create("timed out", new SocketTimeoutException("Read timed out"));
        for (SdkClientException failure : new SdkClientException[] {reset, timeout}) {
            assertThat(LostReplies.verdict(failure)).isEqualTo(FailedWrite.UNCLEAR);
            assertThat(LostReplies.unclear(failure)).isTrue();
            assertThat(LostReplies.provablyNotApplied(failure)).isFalse();
        }
    }

    @Test
    void aRefusedConnectionIsNotSentAndSentAgain() {
        SdkClientException refused = SdkClientException.create("Unable to execute HTTP request",
                new UncheckedIOException(new ConnectException("Connection refused")));
        assertThat(LostReplies.verdict(refused)).isEqualTo(FailedWrite.NOT_SENT);
        assertThat(LostReplies.unclear(refused)).isFalse();
        assertThat(LostReplies.provablyNotApplied(refused)).isTrue();
    }

    @Test
    void anAnswerIsUnclearOnlyForAServerErrorAndSentAgainOnlyForAThrottleBelow500() {
        assertThat(LostReplies.unclear(answer(500, "InternalError"))).isTrue();
        assertThat(LostReplies.provablyNotApplied(answer(500, "InternalError"))).isFalse();
        assertThat(LostReplies.unclear(answer(503, "ThrottlingException"))).isTrue();
        assertThat(LostReplies.provablyNotApplied(answer(503, "ThrottlingException"))).isFalse();

        assertThat(LostReplies.verdict(answer(400, "ThrottlingException"))).isEqualTo(FailedWrite.THROTTLED);
        assertThat(LostReplies.unclear(answer(400, "ThrottlingException"))).isFalse();
        assertThat(LostReplies.provablyNotApplied(answer(400, "ThrottlingException"))).isTrue();

        for (int status : new int[] {400, 404, 409, 412}) {
            assertThat(LostReplies.verdict(answer(status, "Refused"))).isEqualTo(FailedWrite.NOT_APPLIED);
            assertThat(LostReplies.unclear(answer(status, "Refused"))).isFalse();
            assertThat(LostReplies.provablyNotApplied(answer(status, "Refused"))).isFalse();
        }
    }

    @Test
    void aFailureOfTheCallersOwnCodeIsNeitherUnclearNorSentAgain() {
        IllegalStateException own = new IllegalStateException("an interceptor failed");
        assertThat(LostReplies.verdict(own)).isNull();
        assertThat(LostReplies.unclear(own)).isFalse();
        assertThat(LostReplies.provablyNotApplied(own)).isFalse();
    }

    private static DynamoDbException answer(int status, String code) {
        return (DynamoDbException) DynamoDbException.builder().statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).build()).build();
    }
}
