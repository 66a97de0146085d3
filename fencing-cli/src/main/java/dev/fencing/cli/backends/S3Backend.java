package dev.fencing.cli.backends;

import dev.fencing.s3.S3FencedStore;
import dev.fencing.s3.S3ServerCheck;
import dev.fencing.testkit.servers.S3TestServer;
import java.net.URI;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * S3 for a CLI run: the s3 store, on {@code --s3-endpoint} or on an embedded S3Mock behind the
 * testkit's serializing proxy (S3Mock does not arbitrate racing conditional puts; the proxy does).
 */
final class S3Backend {

    static final String BUCKET = "fencing-cli";

    private final Opening opening;
    /** The client, once the bucket is known to exist. */
    private S3Client s3;

    S3Backend(Opening opening) {
        this.opening = opening;
    }

    OpenedStore store() {
        Optional<String> configured = opening.connections.s3Endpoint();
        String endpoint;
        String description;
        if (configured.isEmpty()) {
            S3TestServer server = S3TestServer.launch();
            opening.closeLater(server::stop);
            endpoint = server.atomicEndpoint();
            description = "s3 store on an embedded S3Mock behind the testkit's serializing proxy at " + endpoint;
        } else {
            endpoint = configured.get();
            description = "s3 store on " + endpoint;
        }
        S3Client client = S3Client.builder()
                .httpClient(opening.awsHttpClient())
                .endpointOverride(URI.create(endpoint))
                .forcePathStyle(true)
                .region(Region.of(System.getenv().getOrDefault("AWS_REGION", S3TestServer.REGION)))
                .credentialsProvider(AwsCredentialsProviderChain.of(DefaultCredentialsProvider.builder().build(),
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("fencing", "fencing"))))
                // a silent endpoint fails each call within the CLI's bound, not the SDK's minutes; three
                // attempts, not the SDK's usual four, so a refused port is reported as refused within it
                .overrideConfiguration(c -> c.apiCallTimeout(opening.timeout).retryStrategy(RetryMode.STANDARD))
                .build();
        opening.closeLater(client::close);
        try {
            if (!opening.readOnly) {
                client.createBucket(r -> r.bucket(BUCKET));
            } else if (!bucketExists(client)) {
                return OpenedStore.notSetUp(description, configured.isEmpty(), "S3 bucket " + BUCKET + " is missing");
            }
        } catch (BucketAlreadyOwnedByYouException | BucketAlreadyExistsException exists) {
            // another worker made it first
        } catch (RuntimeException e) {
            throw Opening.unreachable("S3 at " + endpoint, "--s3-endpoint or FENCING_S3_ENDPOINT", e);
        }
        s3 = client;
        PlainStore plain = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                try {
                    return Optional.of(client.getObjectAsBytes(r -> r.bucket(BUCKET).key("plain/" + key)).asUtf8String());
                } catch (NoSuchKeyException e) {
                    return Optional.empty();
                }
            }

            @Override
            public void write(String key, String value) {
                client.putObject(r -> r.bucket(BUCKET).key("plain/" + key), RequestBody.fromString(value));
            }
        };
        return new OpenedStore(policy -> S3FencedStore.builder(client, BUCKET).keyPrefix("fenced/").policy(policy).build(),
                plain, description, configured.isEmpty());
    }

    /** The start-up check of the server (see {@link Backends#checkS3Server}); empty without the bucket. */
    Optional<S3ServerCheck> check() {
        return s3 == null ? Optional.empty() : Optional.of(S3ServerCheck.run(s3, BUCKET));
    }

    private static boolean bucketExists(S3Client client) {
        try {
            client.headBucket(r -> r.bucket(BUCKET));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw e;
        }
    }
}
