package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EtcdServerVersionTest {

    @Test
    void releasesBeforeTheFixAreWarnedOfAndTheFixedOnesAreNot() {
        assertThat(EtcdServerVersion.warning("3.4.23", "http://e:2379")).hasValueSatisfying(warning -> assertThat(warning)
                .contains("http://e:2379").contains("3.4.23").contains("3.4.26").contains("3.5.9")
                .contains("CVE-2023-32082"));
        assertThat(EtcdServerVersion.warning("3.4.25", "e")).isPresent();
        assertThat(EtcdServerVersion.warning("3.5.8", "e")).isPresent();
        assertThat(EtcdServerVersion.warning("3.3.27", "e")).isPresent();
        assertThat(EtcdServerVersion.warning("3.4.26", "e")).isEmpty();
        assertThat(EtcdServerVersion.warning("3.5.9", "e")).isEmpty();
        assertThat(EtcdServerVersion.warning("3.5.21", "e")).isEmpty();
        assertThat(EtcdServerVersion.warning("3.6.0", "e")).isEmpty();
        assertThat(EtcdServerVersion.warning("4.0.0-alpha", "e")).isEmpty();
        assertThat(EtcdServerVersion.warning("", "e")).as("unreadable").isEmpty();
        assertThat(EtcdServerVersion.warning(null, "e")).isEmpty();
    }
}
