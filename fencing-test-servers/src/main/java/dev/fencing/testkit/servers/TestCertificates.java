package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority for TLS tests, made with {@code openssl} in a scratch folder
 * deleted when the JVM exits: the CA, a server certificate for {@code localhost} and
 * {@code 127.0.0.1}, and a client certificate ({@code CN=fencing-client}), each as PEM (keys as
 * unencrypted PKCS#8) and as PKCS#12 stores for Java clients. Elliptic-curve keys (P-256), valid
 * for two days. Two calls make two unrelated authorities: one's clients do not trust the other's
 * servers, which is how the tests check that a wrong certificate fails the connection.
 */
public final class TestCertificates {

    private static final String PASSWORD = "changeit-" + Long.toHexString(System.nanoTime());

    private final Path folder;

    private TestCertificates(Path folder) {
        this.folder = folder;
    }

    /**
     * Makes a new authority and its server and client certificates.
     *
     * @throws IllegalStateException if {@code openssl} is missing or fails (its output is in the message)
     */
    public static TestCertificates create() {
        try {
            Path folder = Files.createTempDirectory("fencing-tls-");
            DataDirectories.deleteOnExit(folder);
            Files.writeString(folder.resolve("server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                    + "extendedKeyUsage=serverAuth,clientAuth\n");
            Files.writeString(folder.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
            openssl(folder, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2", "-subj", "/CN=fencing-test-ca");
            issue(folder, "server", "/CN=localhost");
            issue(folder, "client", "/CN=fencing-client");
            for (String key : List.of("ca-key.pem", "server-key.pem", "client-key.pem")) {
                // PostgreSQL refuses a key file others can read
                Files.setPosixFilePermissions(folder.resolve(key), java.nio.file.attribute.PosixFilePermissions
                        .fromString("rw-------"));
            }
            TestCertificates certificates = new TestCertificates(folder);
            certificates.writeStores();
            return certificates;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write test certificates", e);
        }
    }

    private static void issue(Path folder, String name, String subject) {
        openssl(folder, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", name + "-key.pem", "-out", name + ".csr", "-subj", subject);
        openssl(folder, "x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
                "-CAcreateserial", "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext");
    }

    private static void openssl(Path folder, String... arguments) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException("openssl " + String.join(" ", arguments) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run openssl (install it: apt-get install openssl)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while making test certificates", e);
        }
    }

    private void writeStores() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("fencing-test-ca", certificate(caCertificate()));
            store(trust, trustStore());
            store(keyStore("server"), serverKeyStore());
            store(keyStore("client"), clientKeyStore());
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot write the PKCS#12 stores in " + folder, e);
        }
    }

    private KeyStore keyStore(String name) throws GeneralSecurityException, IOException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry(name, privateKey(folder.resolve(name + "-key.pem")), password(),
                new Certificate[] {certificate(folder.resolve(name + ".pem")), certificate(caCertificate())});
        return keys;
    }

    private void store(KeyStore keyStore, Path file) throws GeneralSecurityException, IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            keyStore.store(out, password());
        }
    }

    private static Certificate certificate(Path pem) throws GeneralSecurityException, IOException {
        try (var in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static PrivateKey privateKey(Path pem) throws GeneralSecurityException, IOException {
        String text = Files.readString(pem);
        String base64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }

    /** The authority's certificate (PEM): what a client or server trusts. */
    public Path caCertificate() {
        return folder.resolve("ca.pem");
    }

    /** The server's certificate (PEM), for {@code localhost} and {@code 127.0.0.1}. */
    public Path serverCertificate() {
        return folder.resolve("server.pem");
    }

    /** The server's private key (PEM, unencrypted PKCS#8). */
    public Path serverKey() {
        return folder.resolve("server-key.pem");
    }

    /** The client's certificate (PEM), {@code CN=fencing-client}. */
    public Path clientCertificate() {
        return folder.resolve("client.pem");
    }

    /** The client's private key (PEM, unencrypted PKCS#8). */
    public Path clientKey() {
        return folder.resolve("client-key.pem");
    }

    /** A PKCS#12 store holding the authority's certificate, protected by {@link #password()}. */
    public Path trustStore() {
        return folder.resolve("truststore.p12");
    }

    /** A PKCS#12 store with the server's key and certificate chain, protected by {@link #password()}. */
    public Path serverKeyStore() {
        return folder.resolve("server.p12");
    }

    /** A PKCS#12 store with the client's key and certificate chain, protected by {@link #password()}. */
    public Path clientKeyStore() {
        return folder.resolve("client.p12");
    }

    /** The password of the PKCS#12 stores (random per JVM). */
    public char[] password() {
        return PASSWORD.toCharArray();
    }

    /** The scratch folder holding every file. */
    public Path folder() {
        return folder;
    }

    @Override
    public String toString() {
        return "test certificates in " + folder;
    }
}
