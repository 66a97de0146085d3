package dev.fencing.dynamodb.lock;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderTransportContract;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.testkit.servers.TlsTerminatingProxy;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.FileStoreTlsKeyManagersProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The provider's round trips ({@link LockProviderTransportContract}; the whole contract runs in plain
 * text) over {@code https://}: dynalite behind the testkit's TLS front, which
 * requires a client certificate of the test authority; the SDK's client trusts that authority and
 * presents the certificate. (dynalite enforces no IAM: docs/security.md lists the policy instead.)
 */
class DynamoDbLockTlsIT extends LockProviderTransportContract {

    private static final String TABLE = "fencing_locks_tls_it";
    private static TestCertificates certificates;
    private static TlsTerminatingProxy https;
    private static boolean created;

    static synchronized DynamoDbClient tlsClient() {
        if (https == null) {
            certificates = TestCertificates.create();
            https = TlsTerminatingProxy.requiringClientCertificates(certificates, "127.0.0.1",
                    URI.create(TestServers.dynamoDb().endpoint()).getPort());
        }
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(URI.create(https.httpsEndpoint()))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.builder()
                        .tlsTrustManagersProvider(() -> trustManagers(certificates))
                        .tlsKeyManagersProvider(FileStoreTlsKeyManagersProvider.create(certificates.clientKeyStore(),
                                "PKCS12", new String(certificates.password())))
                        .build())
                .build();
        if (!created) {
            DynamoDbLockProvider.createTable(client, TABLE);
            created = true;
        }
        return client;
    }

    private static javax.net.ssl.TrustManager[] trustManagers(TestCertificates certificates) {
        try (InputStream in = Files.newInputStream(certificates.trustStore())) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(in, certificates.password());
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trust);
            return factory.getTrustManagers();
        } catch (Exception e) {
            throw new IllegalStateException("cannot load the test trust store", e);
        }
    }

    @AfterAll
    static void closeFront() {
        if (https != null) {
            https.close();
            https = null;
        }
    }

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return DynamoDbLockProvider.builder(tlsClient()).table(TABLE).listener(listener).build();
    }

    /** A provider through a TLS front of its own, closed once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        tlsClient();
        TlsTerminatingProxy own = TlsTerminatingProxy.start(certificates, "127.0.0.1",
                URI.create(TestServers.dynamoDb().endpoint()).getPort());
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(URI.create(own.httpsEndpoint()))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.builder().tlsTrustManagersProvider(() -> trustManagers(certificates))
                        .build())
                .build();
        LockProvider provider = DynamoDbLockProvider.builder(client).table(TABLE).requestTimeout(Duration.ofSeconds(1))
                .build();
        own.close();
        return provider;
    }
}
