package dev.fencing.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisVersionTest {

    private static String info(String version) {
        return "# Server\r\nredis_version:" + version + "\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n";
    }

    @Test
    void versionsFromFiveOnAreAccepted() {
        assertThat(RedisVersion.problem(info("5.0.0"), "x")).isEmpty();
        assertThat(RedisVersion.problem(info("6.2.11"), "x")).isEmpty();
        assertThat(RedisVersion.problem(info("7.0.15"), "x")).isEmpty();
        assertThat(RedisVersion.problem(info("10.1"), "x")).isEmpty();
    }

    @Test
    void olderVersionsAreRefusedNamingTheVersionAndTheMinimum() {
        assertThat(RedisVersion.problem(info("4.0.14"), "Redis at h:1")).hasValueSatisfying(message -> assertThat(message)
                .contains("Redis at h:1").contains("4.0.14").contains("5.0.0"));
        assertThat(RedisVersion.problem(info("3.2"), "x")).hasValueSatisfying(m -> assertThat(m).contains("Redis 3.2;"));
    }

    @Test
    void aReplyWithoutAVersionIsRefused() {
        assertThat(RedisVersion.problem("# Server\r\nredis_mode:standalone\r\n", "x")).isPresent();
        assertThat(RedisVersion.problem(null, "x")).isPresent();
        assertThat(RedisVersion.problem(info("five"), "x")).isPresent();
    }
}
