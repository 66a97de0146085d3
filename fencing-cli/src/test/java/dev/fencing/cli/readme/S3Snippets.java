package dev.fencing.cli.readme;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.s3.FencedObject;
import dev.fencing.s3.FencedS3;
import dev.fencing.s3.S3Layout;
import dev.fencing.s3.S3ServerCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/** The Java snippets of docs/s3.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class S3Snippets {

    private S3Snippets() {}

    static void s3QuickStart(S3Client s3, LockProvider locks, Path csv) throws InterruptedException {
        FencedS3 fenced = FencedS3.create(s3);     // S3Layout.POINTER; FencedS3Async.create(asyncS3) mirrors it
        try (Lease lease = locks.acquire("reports/2026-11.csv", LeaseOptions.ofTtl(Duration.ofSeconds(30)))) {
            fenced.putObject(lease.token(),
                    PutObjectRequest.builder().bucket("reports").key("2026-11.csv").contentType("text/csv").build(),
                    RequestBody.fromFile(csv));
        }
        Optional<FencedObject> report = fenced.getObject("reports", "2026-11.csv");   // content + token
    }

    static void s3InPlace(S3Client s3) {
        FencedS3 readable = FencedS3.builder(s3).layout(S3Layout.IN_PLACE).build();  // only if bodies are unique per write
    }

    static void s3ServerCheck(S3Client s3) {
        S3ServerCheck.run(s3, "reports").requirePassed();   // IllegalStateException naming each failed promise
    }
}
