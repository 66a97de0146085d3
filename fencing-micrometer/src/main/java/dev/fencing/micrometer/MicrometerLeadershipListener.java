package dev.fencing.micrometer;

import dev.fencing.core.internal.Checks;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * A {@link LeadershipListener} that records one candidate's terms as Micrometer meters; pass it to
 * {@code Leadership.builder(...).listener(...)}. The term's lease events reach the provider's
 * {@link MicrometerFencingListener} as any lease's do.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@code fencing.leadership.elected}</td><td>counter</td><td>leadership</td><td>terms won</td></tr>
 *   <tr><td>{@code fencing.leadership.revoked}</td><td>counter</td><td>leadership, reason</td>
 *       <td>terms ended; reason {@code lost} or {@code stopped}</td></tr>
 *   <tr><td>{@code fencing.leadership.leader}</td><td>gauge</td><td>leadership</td>
 *       <td>1 from {@code onElected} to {@code onRevoked}, else 0 (the callbacks can come late:
 *       {@code isLeader()} is the belief itself)</td></tr>
 * </table>
 *
 * <p>The {@code leadership} tag is the name given here (not the lock name, which may be
 * high-cardinality): lower-case letters, digits, {@code .}, {@code _} and {@code -}, at most 64.
 * Thread-safe; no I/O.
 */
public final class MicrometerLeadershipListener implements LeadershipListener {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    private final Counter elected;
    private final Counter[] revoked = new Counter[RevocationReason.values().length];
    private final AtomicInteger leading = new AtomicInteger();

    /**
     * Registers the meters of the leadership named {@code leadership} in {@code registry}.
     *
     * @throws IllegalArgumentException if {@code leadership} is not a valid tag value
     */
    public MicrometerLeadershipListener(MeterRegistry registry, String leadership) {
        Checks.requireNonNull("registry", registry);
        if (leadership == null || !NAME.matcher(leadership).matches()) {
            throw new IllegalArgumentException("leadership tag must match " + NAME.pattern() + ", got '" + leadership + "'");
        }
        elected = Counter.builder("fencing.leadership.elected").tag("leadership", leadership)
                .description("Terms won").register(registry);
        for (RevocationReason reason : RevocationReason.values()) {
            revoked[reason.ordinal()] = Counter.builder("fencing.leadership.revoked").tag("leadership", leadership)
                    .tag("reason", reason.name().toLowerCase(Locale.ROOT)).description("Terms ended").register(registry);
        }
        Gauge.builder("fencing.leadership.leader", leading, AtomicInteger::get).tag("leadership", leadership)
                .description("1 while a term is held, as the callbacks tell").register(registry);
    }

    @Override
    public void onElected(Term term) {
        elected.increment();
        leading.set(1);
    }

    @Override
    public void onRevoked(Term term, RevocationReason reason) {
        revoked[reason.ordinal()].increment();
        leading.set(0);
    }

    /** A builder recording into {@code registry}, as {@code MicrometerFencingListener.builder} does. */
    public static Builder builder(MeterRegistry registry) {
        Checks.requireNonNull("registry", registry);
        return new Builder(registry);
    }

    /** Settings of a {@link MicrometerLeadershipListener}: the {@code leadership} tag, {@code default} unless set. */
    public static final class Builder {
        private final MeterRegistry registry;
        private String leadership = "default";

        private Builder(MeterRegistry registry) {
            this.registry = registry;
        }

        /**
         * The {@code leadership} tag: lower-case letters, digits, {@code .}, {@code _} and {@code -},
         * at most 64 (checked by {@link #build()}).
         */
        public Builder leadership(String leadership) {
            this.leadership = leadership;
            return this;
        }

        /**
         * Registers the meters.
         *
         * @throws IllegalArgumentException if the tag is not valid
         */
        public MicrometerLeadershipListener build() {
            return new MicrometerLeadershipListener(registry, leadership);
        }
    }
}
