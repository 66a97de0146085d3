package dev.fencing.cli.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of the README appears, line for line (indentation aside), in one of
 * this package's sources, or of the Spring Boot module's {@code dev.fencing.spring.readme} test
 * package for snippets that need Spring — which the build compiles. A snippet edited in the README without its
 * compiled copy, or an API change that breaks a snippet, fails the build.
 */
class ReadmeSnippetsTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "fencing", "cli", "readme");
    /** Snippets that need Spring, which the CLI does not have: compiled by the starter's module. */
    private static final Path SPRING_SOURCES = Path.of("..", "fencing-spring-boot-autoconfigure", "src", "test", "java",
            "dev", "fencing", "spring", "readme");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyJavaBlockOfTheReadmeIsCompiledHere() throws IOException {
        List<String> blocks = new ArrayList<>();
        Matcher matcher = JAVA_BLOCK.matcher(Files.readString(README));
        while (matcher.find()) {
            blocks.add(matcher.group(1));
        }
        assertThat(blocks).as("java blocks in the README").hasSizeGreaterThan(10);
        List<List<String>> sources = new ArrayList<>();
        for (Path folder : List.of(SOURCES, SPRING_SOURCES)) {
            try (Stream<Path> files = Files.list(folder)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    sources.add(lines(Files.readString(file)));
                }
            }
        }
        List<String> missing = new ArrayList<>();
        for (String block : blocks) {
            List<String> wanted = lines(block);
            if (sources.stream().noneMatch(source -> contains(source, wanted))) {
                missing.add(block);
            }
        }
        assertThat(missing).as("README java blocks with no compiled copy in " + SOURCES + " or " + SPRING_SOURCES)
                .isEmpty();
    }

    private static List<String> lines(String text) {
        return text.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }

    private static boolean contains(List<String> source, List<String> wanted) {
        return java.util.Collections.indexOfSubList(source, wanted) >= 0;
    }
}
