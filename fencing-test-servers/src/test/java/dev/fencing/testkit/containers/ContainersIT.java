package dev.fencing.testkit.containers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.internal.Resp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;

/** Each container fixture starts and answers one round trip (only where a Docker engine answers). */
@RequiresDocker
class ContainersIT {

    @Test
    void postgresContainerAnswersAQuery() throws Exception {
        try (GenericContainer<?> postgres = Containers.postgres()) {
            postgres.start();
            try (Connection connection = DriverManager.getConnection(Containers.jdbcUrl(postgres));
                    ResultSet result = connection.createStatement().executeQuery("select 1")) {
                assertThat(result.next()).isTrue();
            }
        }
    }

    @Test
    void redisContainerAnswersPing() {
        try (GenericContainer<?> redis = Containers.redis()) {
            redis.start();
            assertThat(Resp.command(redis.getHost(), redis.getMappedPort(6379), "PING")).isEqualTo("PONG");
        }
    }

    @Test
    void localstackCreatesABucket() throws Exception {
        try (GenericContainer<?> localstack = Containers.localstack()) {
            localstack.start();
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(Containers.localstackEndpoint(localstack) + "/smoke-bucket"))
                            .PUT(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
        }
    }
}
