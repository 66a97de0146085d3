package dev.fencing.s3;

import dev.fencing.testkit.servers.S3TestServer;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Clients for the testkit's S3 server through {@link S3TestServer#atomicEndpoint()}: with S3Mock
 * that is the testkit's serializing proxy, which lets one conditional request per object through at
 * a time (S3Mock alone is not atomic under concurrent conditional puts); with
 * {@code FENCING_S3_ENDPOINT} it is that server, assumed atomic like real S3.
 */
final class S3 {

    private S3() {}

    static S3Client client(ExecutionInterceptor... interceptors) {
        return client(TestServers.s3().atomicEndpoint(), interceptors);
    }

    /** A client of the server at {@code endpoint} (a proxy in front of the atomic endpoint). */
    static S3Client client(String endpoint, ExecutionInterceptor... interceptors) {
        return S3Client.builder()
                .endpointOverride(URI.create(endpoint))
                .forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.executionInterceptors(List.of(interceptors)))
                .build();
    }

    static S3AsyncClient asyncClient(ExecutionInterceptor... interceptors) {
        return S3AsyncClient.builder()
                .endpointOverride(URI.create(TestServers.s3().atomicEndpoint()))
                .forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(NettyNioAsyncHttpClient.create())
                .overrideConfiguration(c -> c.executionInterceptors(List.of(interceptors)))
                .build();
    }

    static String newBucket(S3Client s3) {
        String bucket = "fencing-" + UUID.randomUUID().toString().substring(0, 8);
        s3.createBucket(r -> r.bucket(bucket));
        return bucket;
    }
}
