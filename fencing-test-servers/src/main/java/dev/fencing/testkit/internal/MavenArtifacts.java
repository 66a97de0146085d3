package dev.fencing.testkit.internal;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Finds a jar the build resolved: in the local Maven repository, or on the test class path. */
public final class MavenArtifacts {

    private MavenArtifacts() {}

    /** The file of {@code group:artifact:version:classifier}, or an exception saying how to provide it. */
    public static Path locate(String group, String artifact, String version, String classifier) {
        String fileName = artifact + "-" + version + (classifier.isEmpty() ? "" : "-" + classifier) + ".jar";
        List<Path> candidates = new ArrayList<>();
        String repo = System.getProperty("maven.repo.local");
        if (repo != null) {
            candidates.add(Path.of(repo));
        }
        candidates.add(Path.of(System.getProperty("user.home"), ".m2", "repository"));
        for (Path root : candidates) {
            Path file = root.resolve(group.replace('.', '/')).resolve(artifact).resolve(version).resolve(fileName);
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        for (String property : List.of("java.class.path", "surefire.test.class.path", "jdk.module.path")) {
            String path = System.getProperty(property, "");
            for (String entry : path.split(File.pathSeparator)) {
                if (entry.endsWith(File.separator + fileName)) {
                    return Path.of(entry);
                }
            }
        }
        throw new IllegalStateException("cannot find " + fileName + " in the local Maven repository " + candidates
                + " nor on the class path: depend on " + group + ":" + artifact + ":" + version
                + (classifier.isEmpty() ? "" : ":" + classifier) + " in test scope (fencing-test-servers declares it optional),"
                + " or point the testkit at an external server with its FENCING_* variable");
    }
}
