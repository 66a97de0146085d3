package dev.fencing.cli.backends;

import dev.fencing.dynamodb.DynamoDbFencedStore;
import dev.fencing.dynamodb.lock.DynamoDbLockProvider;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * DynamoDB for a CLI run: the dynamodb lock and store, on {@code --dynamodb-endpoint} or on one
 * embedded dynalite started on first use and shared by the two (their tables differ).
 */
final class DynamoDbBackend {

    static final String TABLE = "fencing-cli";
    static final String LOCK_TABLE = "fencing-cli-locks";
    private static final String OPTIONS = "--dynamodb-endpoint or FENCING_DYNAMODB_ENDPOINT";

    private final Opening opening;
    private String embedded;

    DynamoDbBackend(Opening opening) {
        this.opening = opening;
    }

    OpenedLock lock() {
        String endpoint = endpoint();
        String description = "dynamodb lock on " + (isEmbedded() ? "an embedded dynalite at " : "") + endpoint;
        String tokenNote = "max(previous token + 1, this process's clock in microseconds) per grant, written by the"
                + " grant into the lock's own item, which no release deletes";
        DynamoDbClient client = client(endpoint);
        try {
            if (!opening.readOnly) {
                DynamoDbLockProvider.createTable(client, LOCK_TABLE);
            } else if (!tableExists(client, LOCK_TABLE)) {
                return OpenedLock.notSetUp(description, tokenNote,
                        "DynamoDB table " + LOCK_TABLE + " (the dynamodb lock's) is missing");
            }
        } catch (RuntimeException e) {
            throw Opening.unreachable("DynamoDB for the lock at " + endpoint, OPTIONS, e);
        }
        DynamoDbLockProvider provider = DynamoDbLockProvider.builder(client).clock(opening.clock).table(LOCK_TABLE)
                .requestTimeout(opening.timeout).build();
        opening.closeLater(provider);
        return new OpenedLock(provider, description, tokenNote, List.of());
    }

    OpenedStore store() {
        String endpoint = endpoint();
        boolean embeddedStore = isEmbedded();
        String description = "dynamodb store on " + (embeddedStore ? "an embedded dynalite at " : "") + endpoint;
        DynamoDbClient client = client(endpoint);
        try {
            if (!opening.readOnly) {
                DynamoDbFencedStore.createTable(client, TABLE, "pk");
            } else if (!tableExists(client, TABLE)) {
                return OpenedStore.notSetUp(description, embeddedStore, "DynamoDB table " + TABLE + " is missing");
            }
        } catch (RuntimeException e) {
            throw Opening.unreachable("DynamoDB at " + endpoint, OPTIONS, e);
        }
        PlainStore plain = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                var item = client.getItem(r -> r.tableName(TABLE).consistentRead(true)
                        .key(Map.of("pk", AttributeValue.fromS("plain:" + key)))).item();
                return item == null || !item.containsKey("v") ? Optional.empty() : Optional.of(item.get("v").s());
            }

            @Override
            public void write(String key, String value) {
                client.putItem(r -> r.tableName(TABLE).item(Map.of("pk", AttributeValue.fromS("plain:" + key),
                        "v", AttributeValue.fromS(value))));
            }
        };
        return new OpenedStore(policy -> DynamoDbFencedStore.builder(client, TABLE).policy(policy).build(), plain,
                description, embeddedStore);
    }

    private boolean isEmbedded() {
        return opening.connections.dynamoDbEndpoint().isEmpty();
    }

    /** The DynamoDB endpoint given, or the embedded dynalite, started on first use. */
    private String endpoint() {
        Optional<String> configured = opening.connections.dynamoDbEndpoint();
        if (configured.isPresent()) {
            return configured.get();
        }
        if (embedded == null) {
            DynamoDbTestServer server = DynamoDbTestServer.launch();
            opening.closeLater(server::stop);
            embedded = server.endpoint();
        }
        return embedded;
    }

    /** A client of {@code endpoint} (closed when the run ends). */
    private DynamoDbClient client(String endpoint) {
        DynamoDbClient client = DynamoDbClient.builder()
                .httpClient(opening.awsHttpClient())
                .endpointOverride(URI.create(endpoint))
                .region(Region.of(System.getenv().getOrDefault("AWS_REGION", DynamoDbTestServer.REGION)))
                // the AWS default chain (env, profile, instance role), else dummy keys that emulators accept
                .credentialsProvider(AwsCredentialsProviderChain.of(DefaultCredentialsProvider.builder().build(),
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("fencing", "fencing"))))
                // a silent endpoint fails each call within the CLI's bound, not the SDK's minutes; three
                // attempts, not DynamoDB's nine, so a refused port is reported as refused within it
                .overrideConfiguration(c -> c.apiCallTimeout(opening.timeout).retryStrategy(RetryMode.STANDARD))
                .build();
        opening.closeLater(client::close);
        return client;
    }

    private static boolean tableExists(DynamoDbClient client, String table) {
        try {
            client.describeTable(r -> r.tableName(table));
            return true;
        } catch (ResourceNotFoundException e) {
            return false;
        }
    }
}
