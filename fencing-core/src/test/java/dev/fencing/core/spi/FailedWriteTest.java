package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class FailedWriteTest {

    @org.junit.jupiter.api.Test
    void aFailureWithoutReplyIsUnclearUnlessTheConnectionWasRefused() {
        assertThat(FailedWrite.withoutReply(new SocketTimeoutException("Read timed out"))).isEqualTo(FailedWrite.UNCLEAR);
        assertThat(FailedWrite.withoutReply(new SocketException("Connection reset"))).isEqualTo(FailedWrite.UNCLEAR);
        assertThat(FailedWrite.withoutReply(new IllegalStateException("unreadable reply"))).isEqualTo(FailedWrite.UNCLEAR);
        assertThat(FailedWrite.withoutReply(new ConnectException("Connection refused"))).isEqualTo(FailedWrite.NOT_SENT);
    }

    @org.junit.jupiter.api.Test
    void aRefusedConnectionIsFoundAnywhereInTheCauseChain() {
        Exception wrapped = new RuntimeException("Unable to execute HTTP request",
                new UncheckedIOException(new IOException("connect failed", new ConnectException("Connection refused"))));
        assertThat(FailedWrite.withoutReply(wrapped)).isEqualTo(FailedWrite.NOT_SENT);

        Exception reset = new RuntimeException("Unable to execute HTTP request", new SocketException("Connection reset"));
        assertThat(FailedWrite.withoutReply(reset)).isEqualTo(FailedWrite.UNCLEAR);
    }

    @ParameterizedTest(name = "status {0}, throttled {1}: {2}")
    @CsvSource({
        "400, false, NOT_APPLIED",
        "400, true,  THROTTLED",
        "409, false, NOT_APPLIED",
        "412, false, NOT_APPLIED",
        "429, true,  THROTTLED",
        "499, false, NOT_APPLIED",
        "500, false, UNCLEAR",
        "500, true,  UNCLEAR",
        "503, true,  UNCLEAR",
        "504, false, UNCLEAR"
    })
    void anAnsweredFailureIsUnclearOnlyForAServerError(int status, boolean throttled, FailedWrite expected) {
        assertThat(FailedWrite.answered(status, throttled)).isEqualTo(expected);
    }

    @ParameterizedTest
    @EnumSource(FailedWrite.class)
    void onlyWhatProvablyWasNotAppliedIsSentAgainAndOnlyTheUnclearMayHaveBeenApplied(FailedWrite verdict) {
        assertThat(verdict.safeToSendAgain()).isEqualTo(verdict == FailedWrite.NOT_SENT || verdict == FailedWrite.THROTTLED);
        assertThat(verdict.mayHaveBeenApplied()).isEqualTo(verdict == FailedWrite.UNCLEAR);
        assertThat(verdict.safeToSendAgain() && verdict.mayHaveBeenApplied()).isFalse();
    }
}
