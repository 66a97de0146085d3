package dev.fencing.cli.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs hold together: every relative link of {@code README.md}, {@code BENCHMARKS.md} and
 * {@code docs/*.md} leads to a file that exists, and every {@code #anchor} to a heading of that page
 * (named as GitHub names them); the README links every page of {@code docs/}, and every page links
 * back to the README.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("..");
    private static final Path README = ROOT.resolve("README.md");
    private static final Path DOCS = ROOT.resolve("docs");
    private static final Pattern FENCE = Pattern.compile("^```.*?^```", Pattern.DOTALL | Pattern.MULTILINE);
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`\\n]*`");
    private static final Pattern LINK = Pattern.compile("\\[[^\\]\\n]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*$", Pattern.MULTILINE);

    @Test
    void everyRelativeLinkAndAnchorLeadsSomewhere() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            for (String target : links(Files.readString(page))) {
                if (target.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(linked)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                } else if (hash >= 0 && !anchors(Files.readString(linked)).contains(target.substring(hash + 1))) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading in " + ROOT.relativize(linked)
                            + ")");
                }
            }
        }
        assertThat(broken).as("relative links and anchors that lead nowhere").isEmpty();
    }

    @Test
    void theReadmeLinksEveryDocsPageAndEveryPageLinksBack() throws IOException {
        Set<String> fromReadme = new LinkedHashSet<>(links(Files.readString(README)));
        List<String> unlinked = new ArrayList<>();
        List<String> noWayBack = new ArrayList<>();
        for (Path page : docsPages()) {
            if (!fromReadme.contains("docs/" + page.getFileName())) {
                unlinked.add(page.getFileName().toString());
            }
            if (!links(Files.readString(page)).contains("../README.md")) {
                noWayBack.add(page.getFileName().toString());
            }
        }
        assertThat(docsPages()).as("pages in docs/").hasSizeGreaterThan(10);
        assertThat(unlinked).as("docs pages the README does not link").isEmpty();
        assertThat(noWayBack).as("docs pages without a link back to ../README.md").isEmpty();
    }

    @Test
    void anchorsAreNamedAsGitHubNamesThem() {
        assertThat(anchors("# Redis and Redlock (`lock-redis`)\n## The adversary's checklist\n## Exceptions\n"
                + "## Exceptions\n")).containsExactly("redis-and-redlock-lock-redis", "the-adversarys-checklist",
                        "exceptions", "exceptions-1");
        assertThat(links("see [a](a.md#x) and `[b](b.md)`\n```\n[c](c.md)\n```\n")).containsExactly("a.md#x");
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(README, ROOT.resolve("BENCHMARKS.md")));
        pages.addAll(docsPages());
        return pages;
    }

    private static List<Path> docsPages() throws IOException {
        try (Stream<Path> files = Files.list(DOCS)) {
            return files.filter(file -> file.toString().endsWith(".md")).sorted().toList();
        }
    }

    /** The link targets of {@code markdown} outside code blocks and inline code. */
    static List<String> links(String markdown) {
        String prose = INLINE_CODE.matcher(FENCE.matcher(markdown).replaceAll("")).replaceAll("");
        List<String> targets = new ArrayList<>();
        Matcher matcher = LINK.matcher(prose);
        while (matcher.find()) {
            targets.add(matcher.group(1));
        }
        return targets;
    }

    /** The anchors of {@code markdown}'s headings: lower case, punctuation dropped, spaces as hyphens. */
    static List<String> anchors(String markdown) {
        String prose = FENCE.matcher(markdown).replaceAll("");
        List<String> anchors = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        Matcher matcher = HEADING.matcher(prose);
        while (matcher.find()) {
            String slug = matcher.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            int count = seen.merge(slug, 1, Integer::sum);
            anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
        }
        return anchors;
    }
}
