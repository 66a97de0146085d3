package dev.fencing.postgres;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Borrows a connection from a {@link DataSource} on the caller's thread, within a time bound.
 *
 * <p>{@code DataSource} has no timeout per call, so an alarm interrupts the caller when the bound
 * passes: pools wait for a free connection interruptibly (HikariCP, DBCP2, Tomcat JDBC, c3p0), and
 * give up with an {@link SQLException}; the alarm's interrupt is cleared again before
 * {@link TimedOut} is thrown, and a connection that came in the same instant goes straight back. A
 * pool that ignores interrupts is bounded by its own timeout instead. Borrowing on the caller's
 * thread costs no hand-off between threads (on a 2-core VM a hand-off there and back took 44–47
 * µs, a fifth of a whole acquire); an interrupt from elsewhere that lands in the very instant the
 * alarm fires is reported as the timeout.
 *
 * <p>When a borrow times out the cause is not known yet: every connection may be in use, or the
 * pool may be failing to connect (it keeps trying until its own timeout). One probe borrow at a time
 * then runs on a background thread without a bound, and whatever the pool finally answers is kept
 * as {@link #lastFailure()}: the next timeout can say that PostgreSQL did not answer and why.
 * Thread-safe.
 */
final class BoundedBorrow implements AutoCloseable {

    private static final int WAITING = 0;
    private static final int DONE = 1;
    private static final int FIRING = 2;
    private static final int FIRED = 3;

    /** A borrow that did not get a connection within its bound. */
    static final class TimedOut extends Exception {
        private static final long serialVersionUID = 1L;

        TimedOut() {
            super(null, null, false, false);
        }
    }

    /** What the pool last failed with, and when; kept until a borrow succeeds. */
    record Failure(SQLException error, Instant at) {}

    private final DataSource dataSource;
    private final ScheduledThreadPoolExecutor alarms;
    private final ExecutorService prober;
    private final AtomicBoolean probing = new AtomicBoolean();
    private final AtomicReference<@Nullable Failure> lastFailure = new AtomicReference<>();

    BoundedBorrow(DataSource dataSource) {
        this.dataSource = dataSource;
        this.alarms = new ScheduledThreadPoolExecutor(1, daemon("fencing-postgres-borrow-alarm"));
        this.alarms.setRemoveOnCancelPolicy(true);
        this.prober = Executors.newSingleThreadExecutor(daemon("fencing-postgres-pool-probe"));
    }

    /**
     * A connection from the pool within {@code boundNanos}.
     *
     * @throws TimedOut if none came within the bound
     * @throws InterruptedException if the caller was interrupted while waiting (not by the alarm)
     * @throws SQLException if the pool or the driver failed
     */
    Connection borrow(long boundNanos) throws TimedOut, InterruptedException, SQLException {
        Thread caller = Thread.currentThread();
        AtomicInteger state = new AtomicInteger(WAITING);
        ScheduledFuture<?> alarm;
        try {
            alarm = alarms.schedule(() -> {
                if (state.compareAndSet(WAITING, FIRING)) {
                    caller.interrupt();
                    state.set(FIRED);
                }
            }, boundNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("PostgresAdvisoryLockProvider is closed", e);
        }
        @Nullable Connection connection = null;
        @Nullable SQLException failure = null;
        @Nullable RuntimeException unexpected = null;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            failure = e;
        } catch (RuntimeException e) {
            unexpected = e;
        }
        if (state.compareAndSet(WAITING, DONE)) {
            alarm.cancel(false);
            if (connection != null) {
                lastFailure.set(null);
                return connection;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for a pooled connection");
            }
            if (failure == null) {
                throw unexpected != null ? unexpected : new IllegalStateException("the pool returned no connection");
            }
            lastFailure.set(new Failure(failure, Instant.now()));
            throw failure;
        }
        while (state.get() != FIRED) {
            Thread.onSpinWait(); // the alarm is between its compareAndSet and its interrupt
        }
        Thread.interrupted(); // the alarm's, not the caller's
        if (connection != null) {
            closeQuietly(connection);
        }
        probe();
        throw new TimedOut();
    }

    /** The pool's last failure since the last borrow that succeeded, if any. */
    Optional<Failure> lastFailure() {
        return Optional.ofNullable(lastFailure.get());
    }

    /** One unbounded borrow in the background (at most one at a time): its outcome tells why the pool is slow. */
    private void probe() {
        if (!probing.compareAndSet(false, true)) {
            return;
        }
        try {
            prober.execute(() -> {
                try {
                    closeQuietly(dataSource.getConnection());
                    lastFailure.set(null);
                } catch (SQLException e) {
                    lastFailure.set(new Failure(e, Instant.now()));
                } catch (RuntimeException e) {
                    lastFailure.set(new Failure(new SQLException(e.toString(), e), Instant.now()));
                } finally {
                    probing.set(false);
                }
            });
        } catch (RejectedExecutionException closed) {
            probing.set(false);
        }
    }

    /**
     * The reason a connection could not be opened, if {@code error} (or an exception it wraps) says
     * PostgreSQL did not answer: the innermost SQLException of class 08 (connection exception: the
     * driver's, which names the server, rather than a pool's wrapper) or else a refused, unroutable
     * or timed-out socket.
     */
    static Optional<String> connectFailure(Throwable error) {
        String driver = null;
        String socket = null;
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = error; t != null && seen.put(t, Boolean.TRUE) == null; t = next(t)) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
                driver = t.getMessage() + " (SQLState " + sql.getSQLState() + ")";
            } else if (t instanceof ConnectException || t instanceof NoRouteToHostException
                    || t instanceof SocketTimeoutException || t instanceof UnknownHostException) {
                socket = t.toString();
            }
        }
        return Optional.ofNullable(driver != null ? driver : socket);
    }

    private static @Nullable Throwable next(Throwable t) {
        if (t.getCause() != null) {
            return t.getCause();
        }
        return t instanceof SQLException sql ? sql.getNextException() : null;
    }

    static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // a pool that cannot take it back discards it
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Stops the alarm and probe threads; a probe in flight ends with the pool's own timeout. */
    @Override
    public void close() {
        alarms.shutdownNow();
        prober.shutdownNow();
    }
}
