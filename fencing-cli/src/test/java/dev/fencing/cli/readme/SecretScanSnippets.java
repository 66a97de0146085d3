package dev.fencing.cli.readme;

import dev.fencing.testkit.SecretScan;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SecretScan snippet of docs/security.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class SecretScanSnippets {

    private SecretScanSnippets() {}

    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(() -> List.of(System.getenv("REDIS_LOCK_PASSWORD")));
}
