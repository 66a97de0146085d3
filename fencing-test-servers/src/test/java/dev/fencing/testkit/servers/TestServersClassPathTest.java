package dev.fencing.testkit.servers;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A server whose optional library is missing fails with the dependency to add, not a bare NoClassDefFoundError. */
class TestServersClassPathTest {

    @Test
    void aMissingServerLibraryIsNamedWithItsCoordinates() {
        assertThatThrownBy(() -> TestServers.requireOnClassPath("Example", "com.example.NoSuchServer",
                "com.example:no-such-server"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Example test server needs com.example:no-such-server")
                .hasMessageContaining("optional dependency of fencing-test-servers")
                .hasCauseInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void aPresentLibraryPasses() {
        assertThatCode(() -> TestServers.requireOnClassPath("PostgreSQL", "org.postgresql.ds.PGSimpleDataSource",
                "org.postgresql:postgresql")).doesNotThrowAnyException();
    }
}
