package dev.fencing.spring.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.FencingContext;
import dev.fencing.spring.leader.LeaderOnly;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.client.RestClient;

/**
 * The {@code @LeaderOnly} snippets of docs/leader-election.md and docs/spring-boot.md, verbatim:
 * compiled by this module's build, found in the docs by the CLI module's {@code DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class LeaderOnlySnippets {

    private LeaderOnlySnippets() {}

    // @Component
    static class Settlements {
        private final RestClient ledger;

        Settlements(RestClient.Builder builder) {          // Boot's builder: sends the token bound on the thread
            this.ledger = builder.baseUrl("http://ledger.internal").build();
        }

        @Scheduled(fixedDelay = 5_000)
        @LeaderOnly                                         // on the leader only, the term's epoch bound for the call
        public void settle() {
            ledger.post().uri("/settlements").retrieve().toBodilessEntity(); // 409 once a newer leader has written
        }
    }

    // @Component
    static class DailyTotal {
        private final FencedStore totals;

        DailyTotal(FencedStore totals) {
            this.totals = totals;
        }

        @Scheduled(cron = "0 0 2 * * *")
        @LeaderOnly
        public void rollUp() {
            FencingToken term = FencingContext.currentToken().orElseThrow(); // the term, taken before the work
            long total = totals.read("daily-total").map(v -> Long.parseLong(v.value())).orElse(0L);
            totals.write(term, "daily-total", Long.toString(total + 1));
        }
    }
}
