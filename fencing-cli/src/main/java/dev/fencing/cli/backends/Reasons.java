package dev.fencing.cli.backends;

import java.util.ArrayList;
import java.util.List;

/**
 * The driver's own words for a failure: wrappers that only repeat their cause are dropped, and the
 * root cause (often the operating system's "Connection refused") is named with its type.
 */
final class Reasons {

    private Reasons() {}

    /** For example {@code Connection to 127.0.0.1:1 refused. ... (root cause: ConnectException: Connection refused)}. */
    static String of(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        Throwable root = chain.get(chain.size() - 1);
        String tls = chain.stream().anyMatch(t -> t instanceof javax.net.ssl.SSLException
                || t instanceof java.security.cert.CertificateException)
                ? "the TLS handshake failed (is the server's certificate signed by the authority of --tls-ca, or the"
                        + " JVM's trust store without it, and does it name the host?): "
                : "";
        return tls + ofChain(chain, root);
    }

    private static String ofChain(List<Throwable> chain, Throwable root) {
        // the outermost message that says more than repeating the next one's
        String first = null;
        for (int i = 0; i < chain.size(); i++) {
            String message = chain.get(i).getMessage();
            String next = i + 1 < chain.size() ? chain.get(i + 1).getMessage() : null;
            boolean repeatsNext = message != null && next != null && message.contains(next);
            if (message != null && !message.isBlank() && !repeatsNext) {
                first = message;
                break;
            }
        }
        String rootText = root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
        if (first == null) {
            return rootText;
        }
        if (root.getMessage() != null && first.contains(root.getMessage())) {
            return first;
        }
        return first + " (root cause: " + rootText + ")";
    }
}
