package dev.fencing.testkit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Each real server starts (or is found from its FENCING_* variable) and answers one round trip. */
class ServersSmokeIT {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void postgresAnswersAQuery() throws Exception {
        try (Connection connection = TestServers.postgres().connect();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("select current_setting('server_version_num')::int")) {
            assertThat(result.next()).isTrue();
            assertThat(result.getInt(1)).isGreaterThanOrEqualTo(140000);
        }
    }

    @Test
    void mariaDbAnswersAQuery() throws Exception {
        try (Connection connection = TestServers.mariaDb().dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("select version()")) {
            assertThat(result.next()).isTrue();
            assertThat(result.getString(1)).containsIgnoringCase("mariadb");
        }
    }

    @Test
    void eachFreshDatabaseIsEmptyAndSeparate() throws Exception {
        for (SqlTestServer server : java.util.List.<SqlTestServer>of(TestServers.postgres(), TestServers.mariaDb())) {
            javax.sql.DataSource first = server.freshDatabase();
            javax.sql.DataSource second = server.freshDatabase();
            try (Connection a = first.getConnection(); Statement statement = a.createStatement()) {
                statement.execute("create table only_here (id int)");
            }
            try (Connection b = second.getConnection();
                    ResultSet tables = b.getMetaData().getTables(b.getCatalog(), null, "only_here", null)) {
                assertThat(tables.next()).as("table visible in another fresh database of " + server.vendor()).isFalse();
            }
        }
    }

    @Test
    void redisAnswersPingAndStoresAKey() {
        RedisTestServer redis = TestServers.redis();
        assertThat(redis.command("PING")).isEqualTo("PONG");
        String key = "smoke-" + UUID.randomUUID();
        redis.command("SET", key, "v");
        assertThat(redis.command("GET", key)).isEqualTo("v");
    }

    @Test
    void s3StoresAndReturnsAnObject() throws Exception {
        String bucket = "smoke-" + UUID.randomUUID();
        String base = TestServers.s3().endpoint() + "/" + bucket;
        assertThat(send(HttpRequest.newBuilder(URI.create(base)).PUT(HttpRequest.BodyPublishers.noBody())).statusCode())
                .isEqualTo(200);
        HttpResponse<String> put = send(HttpRequest.newBuilder(URI.create(base + "/k"))
                .PUT(HttpRequest.BodyPublishers.ofString("hello")));
        assertThat(put.statusCode()).isEqualTo(200);
        assertThat(put.headers().firstValue("ETag")).isPresent();

        HttpResponse<String> get = send(HttpRequest.newBuilder(URI.create(base + "/k")).GET());
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(get.body()).isEqualTo("hello");
    }

    @Test
    void dynamoDbListsTables() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(TestServers.dynamoDb().endpoint()))
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", "DynamoDB_20120810.ListTables")
                .header("X-Amz-Date", "20260101T000000Z")
                .header("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request,"
                        + " SignedHeaders=host;x-amz-date;x-amz-target, Signature=0")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).contains("TableNames");
    }

    @Test
    void azureBlobAnswersAsAzureStorage() throws Exception {
        // an unsigned request: Azurite answers as Azure Storage does, with its request id and error code
        HttpResponse<String> response = send(HttpRequest.newBuilder(
                URI.create(TestServers.azureBlob().endpoint() + "/no-such-container?restype=container")));
        assertThat(response.headers().firstValue("x-ms-request-id")).isPresent();
        assertThat(response.headers().firstValue("x-ms-error-code")).isPresent();
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
