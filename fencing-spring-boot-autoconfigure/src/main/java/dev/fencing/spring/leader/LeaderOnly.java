package dev.fencing.spring.leader;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this instance leads: on a follower the call returns at once
 * without running it (logged at DEBUG). On the leader the call runs with the current term's epoch
 * bound by {@code FencingContext} (when {@code fencing-propagation} is on the class path), so a
 * {@code RestClient} or gRPC call made inside it carries that term's token and a service fencing on it
 * refuses the call once a newer leader has written — even if this instance was paused mid-call and
 * lost the term meanwhile. Read the token with {@code FencingContext.currentToken()} to fence your own
 * writes with it.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 5_000)
 * @LeaderOnly
 * void settle() {
 *     ledger.post().uri("/settlements").retrieve().toBodilessEntity(); // carries the term's token
 * }
 * }</pre>
 *
 * <p>For a {@code void} method of a Spring bean (the call goes through the bean's proxy, so not from
 * another method of the same bean). Which leadership: the only {@code Leadership} bean, or the one
 * whose lock is {@link #value()}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /** The lock name of the {@code Leadership} bean to follow; empty: the only one. */
    String value() default "";
}
