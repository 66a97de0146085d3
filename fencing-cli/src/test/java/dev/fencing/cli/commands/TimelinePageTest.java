package dev.fencing.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.Policy;
import dev.fencing.testkit.history.CheckResult;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.Operation;
import dev.fencing.testkit.history.Operation.Kind;
import dev.fencing.testkit.history.Operation.Outcome;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class TimelinePageTest {

    private static final long MS = 1_000_000;

    private static Operation write(int writer, long token, String value, Outcome outcome, long fromMs, long toMs) {
        return new Operation(0, writer, "k", Kind.WRITE, token, value, outcome, null, outcome == Outcome.STALE ? 5 : 0,
                fromMs * MS, toMs * MS, outcome == Outcome.UNKNOWN ? "timeout" : null);
    }

    /** The page's SVG, parsed: a page that is not well-formed XML fails here. */
    private static Element svg(String page) throws Exception {
        String svg = page.substring(page.indexOf("<svg"), page.indexOf("</svg>") + "</svg>".length());
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        return doc.getDocumentElement();
    }

    private static long count(Element svg, String cssClass) {
        NodeList all = svg.getElementsByTagName("*");
        long n = 0;
        for (int i = 0; i < all.getLength(); i++) {
            if (List.of(((Element) all.item(i)).getAttribute("class").split(" ")).contains(cssClass)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void everyCallGrantAndFaultIsDrawnAndACleanRunHasNoAnomaly() throws Exception {
        History history = new History(Policy.MONOTONIC, 0, List.of(write(0, 5, "a", Outcome.OK, 10, 20),
                write(1, 3, "b", Outcome.STALE, 30, 40), write(1, 6, "c", Outcome.UNKNOWN, 50, 70)));
        CheckResult checked = HistoryChecker.check(history);
        assertThat(checked.passed()).isTrue();
        List<Map<String, Object>> events = List.of(Map.of("atMillis", 5L, "event", "pause", "target", "etcd2"),
                Map.of("atMillis", 25L, "event", "resume", "target", "etcd2"),
                Map.of("atMillis", 30L, "event", "partition", "target", "isolate etcd1 (the leader)"),
                Map.of("atMillis", 60L, "event", "heal", "target", "every cut lifted"));
        List<TimelinePage.Fault> faults = TimelinePage.faultsFrom(events, 100 * MS, 100 * MS);
        assertThat(faults).extracting(TimelinePage.Fault::target).containsExactly("etcd2", "network");
        assertThat(faults.get(0).startNanos()).isEqualTo(5 * MS);
        assertThat(faults.get(1).endNanos()).isEqualTo(60 * MS);

        String page = TimelinePage.render("run <1>", checked, List.of(new TimelinePage.Grant(8 * MS, 0, "k", 5)), faults,
                "invariants held");
        Element svg = svg(page);
        assertThat(count(svg, "op")).isEqualTo(3);
        assertThat(count(svg, "ok")).isEqualTo(1);
        assertThat(count(svg, "stale")).isEqualTo(1);
        assertThat(count(svg, "unknown")).isEqualTo(1);
        assertThat(count(svg, "grant")).isEqualTo(1);
        assertThat(count(svg, "fault")).isEqualTo(2);
        assertThat(count(svg, "anomaly")).isZero();
        assertThat(page).contains("run &lt;1&gt;").doesNotContain("run <1>").doesNotContain("<h2 class=\"bad\">");
    }

    @Test
    void theOperationsOfAViolationAreOutlinedAndListed() throws Exception {
        // token 3 accepted after token 5 was accepted and returned: a stale write accepted
        History history = new History(Policy.MONOTONIC, 0, List.of(write(0, 5, "a", Outcome.OK, 10, 20),
                write(1, 3, "b", Outcome.OK, 30, 40)));
        CheckResult checked = HistoryChecker.check(history);
        assertThat(checked.passed()).isFalse();
        String page = TimelinePage.render("broken", checked, List.of(), List.of(), "INVARIANTS VIOLATED");
        Element svg = svg(page);
        assertThat(count(svg, "anomaly")).isGreaterThanOrEqualTo(1);
        assertThat(page).contains("<h2 class=\"bad\">Violations</h2>").contains("stroke=\"red\"");
    }

    @Test
    void aLeaseOverlapIsDrawnInRedAndListedEvenWhenTheStoreHeld() throws Exception {
        History history = new History(Policy.MONOTONIC, 0, List.of(write(0, 5, "a", Outcome.OK, 10, 20)));
        CheckResult checked = HistoryChecker.check(history);
        assertThat(checked.passed()).isTrue();
        String page = TimelinePage.render("skewed", checked, List.of(), List.of(),
                List.of(new TimelinePage.Overlap("lock 'k': worker 1's lease (token 4) was told valid 30 ms after ...",
                        12 * MS, 42 * MS)), "INVARIANTS VIOLATED: two leases valid at once");
        Element svg = svg(page);
        assertThat(count(svg, "overlap")).isEqualTo(1);
        assertThat(count(svg, "anomaly")).isEqualTo(1);
        assertThat(page).contains("<h2 class=\"bad\">Lease overlaps</h2>").contains("lease overlaps</text>")
                .contains("<p class=\"bad\">INVARIANTS VIOLATED");
    }

    @Test
    void aPromotionShowsInTheClusterLaneUntilTheOldPrimaryIsBack() {
        List<Map<String, Object>> events = List.of(
                Map.of("atMillis", 10L, "event", "partition", "target", "cut the primary pg1 from its replicas"),
                Map.of("atMillis", 20L, "event", "kill", "target", "pg1 (the primary)"),
                Map.of("atMillis", 21L, "event", "heal", "target", "every cut lifted"),
                Map.of("atMillis", 30L, "event", "promote", "target", "pg2 promoted to primary"),
                Map.of("atMillis", 50L, "event", "start", "target", "pg1 back as a replica of pg2"));
        List<TimelinePage.Fault> faults = TimelinePage.faultsFrom(events, 0, 0);
        assertThat(faults).extracting(TimelinePage.Fault::target).containsExactlyInAnyOrder("network", "cluster", "pg1");
        TimelinePage.Fault promoted = faults.stream().filter(f -> f.target().equals("cluster")).findFirst().orElseThrow();
        assertThat(promoted.what()).startsWith("promote: pg2");
        assertThat(promoted.startNanos()).isEqualTo(30 * MS);
        assertThat(promoted.endNanos()).isEqualTo(50 * MS);
    }
}
