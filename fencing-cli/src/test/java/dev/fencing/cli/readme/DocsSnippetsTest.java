package dev.fencing.cli.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of {@code README.md} and {@code docs/*.md} compiles, with the imports
 * it shows. A block starts with its {@code import} lines; the rest of it appears, line for line
 * (indentation and blank lines aside), in one of this package's sources, or of the Spring Boot
 * module's {@code dev.fencing.spring.readme} test package for snippets that need Spring, or of the
 * testkit's {@code com.example.mapstore} test package for the testing guide's third-party store (which
 * the testkit's build also runs), or of the propagation module's {@code dev.fencing.propagation.readme}
 * test package for the clients and servers of other services, or of {@code lock-dynamodb}'s
 * {@code readme} test package — which the build compiles. That source must have every import the block shows, and the block must show
 * exactly the imports it needs: each one names a type its code uses, and each import of the source
 * that its code uses is shown (comments and string literals do not count as use; classes of the
 * snippet package itself, such as {@code AccountDao}, stand for the reader's own and need none).
 *
 * <p>A snippet edited in the docs without its compiled copy, an import left out or left over, or an
 * API change that breaks a snippet fails the build.
 */
class DocsSnippetsTest {

    private static final Path ROOT = Path.of("..");
    private static final Path README = ROOT.resolve("README.md");
    private static final Path DOCS = ROOT.resolve("docs");
    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "fencing", "cli", "readme");
    /** Snippets that need Spring, which the CLI does not have: compiled by the starter's module. */
    private static final Path SPRING_SOURCES = ROOT.resolve(Path.of("fencing-spring-boot-autoconfigure", "src", "test",
            "java", "dev", "fencing", "spring", "readme"));
    /** The testing guide's third-party store and its test: compiled and run by the testkit's own build. */
    private static final Path THIRD_PARTY_SOURCES = ROOT.resolve(Path.of("fencing-testkit", "src", "test", "java", "com",
            "example", "mapstore"));
    private static final Path PROPAGATION_SOURCES = ROOT.resolve(Path.of("fencing-propagation", "src", "test", "java",
            "dev", "fencing", "propagation", "readme"));
    private static final Path DYNAMODB_LOCK_SOURCES = ROOT.resolve(Path.of("lock-dynamodb", "src", "test", "java",
            "dev", "fencing", "dynamodb", "lock", "readme"));
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern IMPORT = Pattern.compile("import\\s+(static\\s+)?([\\w.]+(?:\\.\\*)?)\\s*;");
    private static final Pattern STRING_OR_CHAR = Pattern.compile("\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])+'");
    private static final Pattern BLOCK_COMMENT = Pattern.compile("/\\*.*?\\*/", Pattern.DOTALL);
    private static final Pattern LINE_COMMENT = Pattern.compile("//[^\\n]*");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    /** A {@code ```java} block of a page: its import lines, and the rest as the compiled copy must hold it. */
    record Block(String where, List<String> imports, List<String> body, String code) {}

    /** A compiled source: its lines as a block's body is compared with them, and its import lines. */
    record Source(String name, List<String> lines, Set<String> imports) {}

    @Test
    void everyJavaBlockOfTheReadmeAndTheDocsCompilesWithTheImportsItShows() throws IOException {
        List<Path> pages = pages();
        List<Block> blocks = new ArrayList<>();
        for (Path page : pages) {
            blocks.addAll(blocks(ROOT.relativize(page).toString(), Files.readString(page)));
        }
        assertThat(blocks).as("java blocks in README.md and docs/").hasSizeGreaterThan(20);
        assertThat(blocks).as("java blocks in README.md").anyMatch(block -> block.where().startsWith("README.md"));
        assertThat(blocks).as("java blocks in docs/").anyMatch(block -> block.where().startsWith("docs"));
        List<Source> sources = sources();
        List<String> problems = new ArrayList<>();
        for (Block block : blocks) {
            problems.addAll(check(block, sources));
        }
        assertThat(problems).as("java blocks without a compiled copy in " + SOURCES + ", " + SPRING_SOURCES + " or "
                + THIRD_PARTY_SOURCES + ", " + PROPAGATION_SOURCES + " or " + DYNAMODB_LOCK_SOURCES
                + " that has the imports they show").isEmpty();
    }

    /** The check itself can fail: each way a block can go wrong is caught. */
    @Test
    void aBlockWithoutItsCompiledCopyOrWithWrongImportsIsCaught() {
        Source source = source("Example.java", """
                package dev.fencing.cli.readme;

                import dev.fencing.core.Lease;
                import dev.fencing.core.LeaseOptions;
                import java.time.Duration;
                import java.util.List;

                final class Example {
                    static void run(dev.fencing.core.LockProvider locks) throws InterruptedException {
                        try (Lease lease = locks.acquire("a", LeaseOptions.ofTtl(Duration.ofSeconds(1)))) {
                            List.of(lease);   // the lease in a list
                        }
                    }
                }
                """);
        String body = """
                try (Lease lease = locks.acquire("a", LeaseOptions.ofTtl(Duration.ofSeconds(1)))) {
                    List.of(lease);   // the lease in a list
                }
                """;
        String imports = """
                import dev.fencing.core.Lease;
                import dev.fencing.core.LeaseOptions;
                import java.time.Duration;
                import java.util.List;

                """;
        assertThat(check(block(imports + body), List.of(source))).isEmpty();
        assertThat(check(block(body), List.of(source)))
                .singleElement().asString().contains("does not start with its import lines");
        assertThat(check(block(imports + body.replace("\"a\"", "\"b\"")), List.of(source)))
                .singleElement().asString().contains("no compiled copy");
        assertThat(check(block(imports.replace("import java.util.List;\n", "") + body), List.of(source)))
                .singleElement().asString().contains("does not show import java.util.List;");
        assertThat(check(block("import java.util.Map;\n" + imports + body), List.of(source)))
                .hasSize(2).anyMatch(problem -> problem.contains("the compiled copy in Example.java does not have"))
                .anyMatch(problem -> problem.contains("import java.util.Map; is not used"));
        String onlyInComments = "import dev.fencing.core.Lease;\n\n// a Lease, or a \"Duration\"\nLease.class.getName();\n";
        Source withComment = source("Comments.java", "import dev.fencing.core.Lease;\nimport java.time.Duration;\n"
                + "class Comments { void x() {\n// a Lease, or a \"Duration\"\nLease.class.getName();\n} }\n");
        assertThat(check(block(onlyInComments), List.of(withComment))).isEmpty();
    }

    private static Block block(String text) {
        return blocks("Example.md", "```java\n" + text + "```\n").get(0);
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(README));
        try (Stream<Path> files = Files.list(DOCS)) {
            pages.addAll(files.filter(file -> file.toString().endsWith(".md")).sorted().toList());
        }
        return pages;
    }

    private static List<Source> sources() throws IOException {
        List<Source> sources = new ArrayList<>();
        for (Path folder : List.of(SOURCES, SPRING_SOURCES, THIRD_PARTY_SOURCES, PROPAGATION_SOURCES,
                DYNAMODB_LOCK_SOURCES)) {
            try (Stream<Path> files = Files.list(folder)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                    sources.add(source(file.getFileName().toString(), Files.readString(file)));
                }
            }
        }
        return sources;
    }

    static Source source(String name, String text) {
        Set<String> imports = new LinkedHashSet<>();
        for (String line : lines(text)) {
            if (IMPORT.matcher(line).matches()) {
                imports.add(line);
            }
        }
        return new Source(name, lines(text), imports);
    }

    static List<Block> blocks(String page, String markdown) {
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = JAVA_BLOCK.matcher(markdown);
        while (matcher.find()) {
            int line = 1 + (int) markdown.substring(0, matcher.start()).chars().filter(c -> c == '\n').count();
            List<String> all = matcher.group(1).lines().toList();
            List<String> imports = new ArrayList<>();
            int first = 0;
            while (first < all.size()
                    && (all.get(first).isBlank() || IMPORT.matcher(all.get(first).strip()).matches())) {
                if (!all.get(first).isBlank()) {
                    imports.add(all.get(first).strip());
                }
                first++;
            }
            String code = String.join("\n", all.subList(first, all.size()));
            blocks.add(new Block(page + ":" + line, imports, lines(code), code));
        }
        return blocks;
    }

    /** What is wrong with {@code block}: empty if one source holds its body and fits its imports. */
    static List<String> check(Block block, List<Source> sources) {
        if (block.imports().isEmpty()) {
            return List.of(block.where() + ": the block does not start with its import lines");
        }
        List<Source> copies = sources.stream()
                .filter(source -> Collections.indexOfSubList(source.lines(), block.body()) >= 0).toList();
        if (copies.isEmpty()) {
            return List.of(block.where() + ": no compiled copy of the block's code (after its imports) in any source: "
                    + block.body());
        }
        List<String> firstProblems = null;
        for (Source copy : copies) {
            List<String> problems = importProblems(block, copy);
            if (problems.isEmpty()) {
                return List.of();
            }
            if (firstProblems == null) {
                firstProblems = problems;
            }
        }
        return firstProblems;
    }

    private static List<String> importProblems(Block block, Source copy) {
        Set<String> used = identifiers(block.code());
        List<String> problems = new ArrayList<>();
        for (String shown : block.imports()) {
            if (!copy.imports().contains(shown)) {
                problems.add(block.where() + ": the compiled copy in " + copy.name() + " does not have " + shown);
            }
            String name = simpleName(shown);
            if (!name.equals("*") && !used.contains(name)) {
                problems.add(block.where() + ": " + shown + " is not used by the block's code");
            }
        }
        for (String needed : copy.imports()) {
            if (used.contains(simpleName(needed)) && !block.imports().contains(needed)) {
                problems.add(block.where() + ": the block does not show " + needed + " (its code uses "
                        + simpleName(needed) + "; compiled copy in " + copy.name() + ")");
            }
        }
        return problems;
    }

    private static String simpleName(String importLine) {
        Matcher matcher = IMPORT.matcher(importLine);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("not an import line: " + importLine);
        }
        String name = matcher.group(2);
        return name.substring(name.lastIndexOf('.') + 1);
    }

    /** The identifiers of {@code code} outside its comments and string literals. */
    private static Set<String> identifiers(String code) {
        String withoutStrings = STRING_OR_CHAR.matcher(code).replaceAll("\"\"");
        String withoutComments = LINE_COMMENT.matcher(BLOCK_COMMENT.matcher(withoutStrings).replaceAll(" ")).replaceAll("");
        Set<String> identifiers = new LinkedHashSet<>();
        Matcher matcher = IDENTIFIER.matcher(withoutComments);
        while (matcher.find()) {
            identifiers.add(matcher.group());
        }
        return identifiers;
    }

    private static List<String> lines(String text) {
        return text.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }
}
