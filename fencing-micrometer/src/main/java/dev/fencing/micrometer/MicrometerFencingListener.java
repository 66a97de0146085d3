package dev.fencing.micrometer;

import dev.fencing.core.AcquireOutcome;
import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Lease;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FencingListener} that records lease and fenced-store events as Micrometer meters.
 * Pass it to a provider's builder ({@code .listener(...)}) and to the stores' builders; one
 * instance may serve both.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@code fencing.lease.acquire}</td><td>timer</td><td>provider, outcome</td>
 *       <td>every {@code tryAcquire}/{@code acquire}/{@code acquireAsync} call, from call to end; outcome
 *       {@code granted}, {@code held}, {@code timed_out}, {@code unavailable}, {@code interrupted},
 *       {@code failed}</td></tr>
 *   <tr><td>{@code fencing.lease.held}</td><td>timer</td><td>provider</td>
 *       <td>from grant to release or loss</td></tr>
 *   <tr><td>{@code fencing.lease.renewals}</td><td>counter</td><td>provider</td><td>successful renewals</td></tr>
 *   <tr><td>{@code fencing.lease.renewals.failing}</td><td>counter</td><td>provider</td>
 *       <td>early warnings: auto-renewed leases whose renewals kept failing into the warning margin
 *       ({@link FencingListener#onRenewalsFailing})</td></tr>
 *   <tr><td>{@code fencing.lease.lost}</td><td>counter</td><td>provider, reason</td>
 *       <td>leases found lost; reason {@code taken_over}, {@code expired}, {@code connection},
 *       {@code closed}, {@code error} or {@code other}</td></tr>
 *   <tr><td>{@code fencing.lease.active}</td><td>gauge</td><td>provider</td><td>leases granted and not yet
 *       released or lost</td></tr>
 *   <tr><td>{@code fencing.store.writes}</td><td>counter</td><td>store, outcome</td>
 *       <td>writes, updates and deletes of a fenced store; outcome {@code accepted}, {@code stale}
 *       (a zombie write stopped), {@code foreign} (a token of another lock), {@code conflict}
 *       (an update that kept racing), {@code unknown} (the reply was lost)</td></tr>
 * </table>
 *
 * <p>Tags are low-cardinality by construction: resource names, keys, owner ids and tokens never
 * become tags, and every tag value comes from a fixed set or from the names given to the builder.
 * Thread-safe; every callback is a map lookup and a meter update, no I/O.
 */
public final class MicrometerFencingListener implements FencingListener {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    private final Timer[] acquires = new Timer[AcquireOutcome.values().length];
    private final Timer held;
    private final Counter renewals;
    private final Counter renewalsFailing;
    private final Counter[] losses = new Counter[LossReason.values().length];
    private final Counter[] writes = new Counter[WriteResult.values().length];
    /** Start of each lease not yet released or lost; its size is the active gauge. */
    private final Map<Lease, Long> grantedAt = new ConcurrentHashMap<>();

    /** Why a lease was lost, from the provider's reason: a fixed set, so the tag stays low-cardinality. */
    enum LossReason {
        TAKEN_OVER, EXPIRED, CONNECTION, CLOSED, ERROR, OTHER;

        static LossReason of(String reason, @Nullable Throwable cause) {
            String text = String.valueOf(reason).toLowerCase(Locale.ROOT);
            if (text.contains("no longer held") || text.contains("another owner") || text.contains("taken over")) {
                return TAKEN_OVER;
            }
            if (text.contains("closed")) {
                return CLOSED;
            }
            if (text.contains("session") || text.contains("connection") || text.contains("suspended")
                    || text.contains("did not answer")) {
                return CONNECTION;
            }
            if (text.contains("expired") || text.contains("ran out") || text.contains("lapsed")) {
                return EXPIRED;
            }
            return cause != null ? ERROR : OTHER;
        }
    }

    /** A fenced store write's outcome. */
    enum WriteResult {
        ACCEPTED, STALE, FOREIGN, CONFLICT, UNKNOWN;

        static WriteResult of(FencingException failure) {
            if (failure instanceof StaleTokenException) {
                return STALE;
            }
            if (failure instanceof ForeignTokenException) {
                return FOREIGN;
            }
            if (failure instanceof ConcurrentUpdateException) {
                return CONFLICT;
            }
            if (failure instanceof WriteOutcomeUnknownException) {
                return UNKNOWN;
            }
            return UNKNOWN;
        }
    }

    private MicrometerFencingListener(Builder builder) {
        MeterRegistry registry = builder.registry;
        String provider = builder.provider;
        for (AcquireOutcome outcome : AcquireOutcome.values()) {
            acquires[outcome.ordinal()] = Timer.builder("fencing.lease.acquire")
                    .description("Lock acquire calls, from the call to its end")
                    .tag("provider", provider).tag("outcome", tagValue(outcome))
                    .register(registry);
        }
        held = Timer.builder("fencing.lease.held").description("Leases, from grant to release or loss")
                .tag("provider", provider).register(registry);
        renewals = Counter.builder("fencing.lease.renewals").description("Successful lease renewals")
                .tag("provider", provider).register(registry);
        renewalsFailing = Counter.builder("fencing.lease.renewals.failing")
                .description("Auto-renewed leases whose renewals kept failing into the warning margin")
                .tag("provider", provider).register(registry);
        for (LossReason reason : LossReason.values()) {
            losses[reason.ordinal()] = Counter.builder("fencing.lease.lost").description("Leases found lost")
                    .tag("provider", provider).tag("reason", tagValue(reason)).register(registry);
        }
        Gauge.builder("fencing.lease.active", grantedAt, Map::size)
                .description("Leases granted and not yet released or lost")
                .tag("provider", provider).register(registry);
        for (WriteResult result : WriteResult.values()) {
            writes[result.ordinal()] = Counter.builder("fencing.store.writes")
                    .description("Fenced store writes, updates and deletes by outcome; stale = zombie writes stopped")
                    .tag("store", builder.store).tag("outcome", tagValue(result)).register(registry);
        }
    }

    /** A builder of a listener recording into {@code registry}. */
    public static Builder builder(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null");
        }
        return new Builder(registry);
    }

    /** A listener recording into {@code registry} with the provider and store tags {@code default}. */
    public static MicrometerFencingListener create(MeterRegistry registry) {
        return builder(registry).build();
    }

    private static String tagValue(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public void onGranted(Lease lease) {
        grantedAt.put(lease, System.nanoTime());
    }

    @Override
    public void onRenewed(Lease lease) {
        renewals.increment();
    }

    @Override
    public void onReleased(Lease lease) {
        ended(lease);
    }

    @Override
    public void onRenewalsFailing(Lease lease, Duration remaining, @Nullable Throwable lastFailure) {
        renewalsFailing.increment();
    }

    @Override
    public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
        losses[LossReason.of(reason, cause).ordinal()].increment();
        ended(lease, null);
    }

    /** As the three-argument form; the held time stops where the lease stopped being valid. */
    @Override
    public void onLost(Lease lease, String reason, @Nullable Throwable cause, Duration heldFor) {
        losses[LossReason.of(reason, cause).ordinal()].increment();
        ended(lease, heldFor);
    }

    private void ended(Lease lease) {
        ended(lease, null);
    }

    private void ended(Lease lease, @Nullable Duration heldFor) {
        Long start = grantedAt.remove(lease);
        if (start != null) {
            Duration sinceGrant = Duration.ofNanos(System.nanoTime() - start);
            held.record(heldFor != null && heldFor.compareTo(sinceGrant) < 0 ? heldFor : sinceGrant);
        }
    }

    @Override
    public void onAcquireFinished(String resource, AcquireOutcome outcome, Duration waited) {
        acquires[outcome.ordinal()].record(waited);
    }

    @Override
    public void onStaleWriteRejected(StaleTokenException rejection) {
        writes[WriteResult.STALE.ordinal()].increment();
    }

    @Override
    public void onWriteAccepted(FencingToken token, String key) {
        writes[WriteResult.ACCEPTED.ordinal()].increment();
    }

    @Override
    public void onWriteFailed(String key, FencingException failure) {
        writes[WriteResult.of(failure).ordinal()].increment();
    }

    /** Configures a {@link MicrometerFencingListener}. */
    public static final class Builder {
        private final MeterRegistry registry;
        private String provider = "default";
        private String store = "default";

        private Builder(MeterRegistry registry) {
            this.registry = registry;
        }

        /**
         * The {@code provider} tag of the lease meters (e.g. {@code redis}, {@code postgres});
         * default {@code default}. 1 to 64 characters of lower-case letters, digits and {@code ._-},
         * starting with a letter or digit.
         */
        public Builder provider(String provider) {
            this.provider = requireName("provider", provider);
            return this;
        }

        /** The {@code store} tag of the store meters (e.g. {@code jdbc}, {@code dynamodb}); rules as for {@link #provider}. */
        public Builder store(String store) {
            this.store = requireName("store", store);
            return this;
        }

        /** Registers the meters (idempotent per registry: the same names and tags share meters). */
        public MicrometerFencingListener build() {
            return new MicrometerFencingListener(this);
        }

        private static String requireName(String what, String value) {
            if (value == null || !NAME.matcher(value).matches()) {
                throw new IllegalArgumentException(what + " tag must be 1 to 64 characters of lower-case letters, digits"
                        + " and '._-', starting with a letter or digit, got '" + value + "'");
            }
            return value;
        }
    }
}
