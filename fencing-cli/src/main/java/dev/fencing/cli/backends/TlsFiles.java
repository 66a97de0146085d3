package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import io.lettuce.core.SslOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;

/**
 * The CLI's TLS material ({@code --tls-ca}, {@code --tls-cert}, {@code --tls-key}), read and checked
 * once, handed to each client in its own form: Lettuce's {@code SslOptions}, the AWS SDK's trust and
 * key managers, a JDBC URL's {@code sslrootcert}. Without {@code --tls-ca} the JVM's trust store
 * decides, as it would for any Java client. Messages name the option and the file, never a key.
 */
public final class TlsFiles {

    private static final char[] IN_MEMORY = new char[0];

    private final @Nullable Path ca;
    private final @Nullable Path certificate;
    private final @Nullable Path key;
    private final TrustManager @Nullable [] trustManagers;
    private final KeyManager @Nullable [] keyManagers;

    private TlsFiles(@Nullable Path ca, @Nullable Path certificate, @Nullable Path key) {
        this.ca = ca;
        this.certificate = certificate;
        this.key = key;
        this.trustManagers = ca == null ? null : trustManagers(ca);
        this.keyManagers = certificate == null || key == null ? null : keyManagers(certificate, key);
    }

    /**
     * Reads and checks the files.
     *
     * @throws CliException (usage) naming the option and the file if one cannot be read or parsed, or
     *     if only one of the certificate and its key is given
     */
    static TlsFiles read(@Nullable Path ca, @Nullable Path certificate, @Nullable Path key) {
        if ((certificate == null) != (key == null)) {
            throw new CliException(ExitCode.USAGE, "--tls-cert and --tls-key go together (the client certificate and"
                    + " its private key); got only " + (certificate == null ? "--tls-key" : "--tls-cert"));
        }
        return new TlsFiles(ca, certificate, key);
    }

    /** No files: the JVM's trust store, no client certificate. */
    static TlsFiles none() {
        return new TlsFiles(null, null, null);
    }

    /** Whether any file was given. */
    public boolean any() {
        return ca != null || certificate != null;
    }

    /** Lettuce's settings for {@code rediss://} servers; empty without files (Lettuce's defaults). */
    Optional<SslOptions> lettuce() {
        if (!any()) {
            return Optional.empty();
        }
        SslOptions.Builder builder = SslOptions.builder().jdkSslProvider();
        if (ca != null) {
            builder.trustManager(ca.toFile());
        }
        if (certificate != null && key != null) {
            builder.keyManager(certificate.toFile(), key.toFile(), null);
        }
        return Optional.of(builder.build());
    }

    /**
     * {@code url} with {@code sslrootcert} set to {@code --tls-ca} when the URL asks for TLS
     * ({@code sslmode=} other than {@code disable}) and names no root certificate of its own.
     */
    String jdbcUrl(String url) {
        if (ca == null || !url.startsWith("jdbc:postgresql:") || !url.contains("sslmode=")
                || url.contains("sslmode=disable")) {
            return url;
        }
        java.util.regex.Matcher mode = java.util.regex.Pattern.compile("[?&]sslmode=([^&]*)").matcher(url);
        if (mode.find() && !mode.group(1).equals("verify-full") && !mode.group(1).equals("verify-ca")) {
            // pgjdbc checks the server's certificate only with verify-ca and verify-full; prefer and allow
            // also go on in plaintext when the server offers no TLS
            throw new CliException(ExitCode.USAGE, "--pg-url has sslmode=" + mode.group(1) + ", with which the"
                    + " PostgreSQL driver checks no certificate (and prefer or allow may go on in plaintext), so"
                    + " --tls-ca would protect nothing: use sslmode=verify-full");
        }
        if (url.contains("sslrootcert=")) {
            return url;
        }
        return url + "&sslrootcert=" + URLEncoder.encode(ca.toString(), StandardCharsets.UTF_8);
    }

    /** The AWS SDK's HTTP client with these trust and key managers (the SDK's defaults for what is not given). */
    SdkHttpClient awsHttpClient() {
        Apache5HttpClient.Builder builder = Apache5HttpClient.builder();
        TrustManager[] trust = trustManagers;
        if (trust != null) {
            builder.tlsTrustManagersProvider(() -> trust);
        }
        KeyManager[] keys = keyManagers;
        if (keys != null) {
            builder.tlsKeyManagersProvider(() -> keys);
        }
        return builder.build();
    }

    /**
     * An {@code SSLContext} with these trust and key managers (the JVM's for what is not given), for
     * clients that take one (the Azure SDK's JDK HTTP client).
     */
    SSLContext sslContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers, trustManagers, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a TLS context from the --tls-* files", e);
        }
    }

    /** gRPC's Netty TLS settings with these files, for {@code https://} etcd endpoints; empty without files. */
    Optional<io.netty.handler.ssl.SslContext> grpc() {
        if (!any()) {
            return Optional.empty();
        }
        try {
            io.netty.handler.ssl.SslContextBuilder builder = io.grpc.netty.GrpcSslContexts.forClient();
            if (ca != null) {
                builder.trustManager(ca.toFile());
            }
            if (certificate != null && key != null) {
                builder.keyManager(certificate.toFile(), key.toFile());
            }
            return Optional.of(builder.build());
        } catch (javax.net.ssl.SSLException e) {
            throw new CliException(ExitCode.USAGE, "the --tls-* files cannot make gRPC's TLS settings: "
                    + e.getClass().getSimpleName());
        }
    }

    /**
     * ZooKeeper's client settings for its TLS port (Netty, {@code zookeeper.client.secure}): trust
     * {@code --tls-ca} (PEM), present {@code --tls-cert}/{@code --tls-key} (one PEM file of both,
     * written beside nothing else and deleted at exit), else the JVM's defaults.
     */
    org.apache.zookeeper.client.ZKClientConfig zooKeeper() {
        org.apache.zookeeper.client.ZKClientConfig config = new org.apache.zookeeper.client.ZKClientConfig();
        config.setProperty("zookeeper.client.secure", "true");
        config.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
        if (ca != null) {
            config.setProperty("zookeeper.ssl.trustStore.location", ca.toString());
            config.setProperty("zookeeper.ssl.trustStore.type", "PEM");
        }
        if (certificate != null && key != null) {
            try {
                Path both = Files.createTempFile("fencing-zookeeper-client-", ".pem");
                both.toFile().deleteOnExit();
                Files.setPosixFilePermissions(both, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
                Files.writeString(both, Files.readString(key) + "\n" + Files.readString(certificate));
                config.setProperty("zookeeper.ssl.keyStore.location", both.toString());
                config.setProperty("zookeeper.ssl.keyStore.type", "PEM");
            } catch (IOException e) {
                throw new CliException(ExitCode.USAGE, "cannot combine --tls-cert and --tls-key for ZooKeeper: "
                        + e.getClass().getSimpleName());
            }
        }
        return config;
    }

    private static TrustManager[] trustManagers(Path ca) {
        try (InputStream in = Files.newInputStream(ca)) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509")
                    .generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new CliException(ExitCode.USAGE, "--tls-ca " + ca + " holds no PEM certificate");
            }
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate certificate : certificates) {
                store.setCertificateEntry("ca-" + i++, certificate);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory.getTrustManagers();
        } catch (IOException | GeneralSecurityException e) {
            throw new CliException(ExitCode.USAGE, "--tls-ca " + ca + " is not a readable PEM certificate: "
                    + e.getClass().getSimpleName());
        }
    }

    private static KeyManager[] keyManagers(Path certificate, Path key) {
        Certificate[] chain;
        try (InputStream in = Files.newInputStream(certificate)) {
            chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(Certificate[]::new);
        } catch (IOException | GeneralSecurityException e) {
            throw new CliException(ExitCode.USAGE, "--tls-cert " + certificate + " is not a readable PEM certificate: "
                    + e.getClass().getSimpleName());
        }
        if (chain.length == 0) {
            throw new CliException(ExitCode.USAGE, "--tls-cert " + certificate + " holds no PEM certificate");
        }
        PrivateKey privateKey = privateKey(key);
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            store.setKeyEntry("client", privateKey, IN_MEMORY, chain);
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, IN_MEMORY);
            return factory.getKeyManagers();
        } catch (IOException | GeneralSecurityException e) {
            throw new CliException(ExitCode.USAGE, "--tls-key " + key + " does not match --tls-cert " + certificate
                    + ": " + e.getClass().getSimpleName());
        }
    }

    private static PrivateKey privateKey(Path key) {
        byte[] der;
        try {
            String pem = Files.readString(key, StandardCharsets.US_ASCII);
            if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
                throw new CliException(ExitCode.USAGE, "--tls-key " + key + " must be an unencrypted PKCS#8 PEM key"
                        + " (-----BEGIN PRIVATE KEY-----); convert one with: openssl pkcs8 -topk8 -nocrypt");
            }
            der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
        } catch (IOException | IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--tls-key " + key + " is not a readable PEM key: "
                    + e.getClass().getSimpleName());
        }
        for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException wrongAlgorithm) {
                // try the next
            }
        }
        throw new CliException(ExitCode.USAGE, "--tls-key " + key + " is not an EC, RSA or Ed25519 PKCS#8 key");
    }
}
