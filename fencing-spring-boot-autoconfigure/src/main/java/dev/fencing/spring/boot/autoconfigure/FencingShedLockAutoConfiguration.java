package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import dev.fencing.shedlock.FencedShedLockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * A {@link FencedShedLockProvider} — ShedLock's lock provider — over the application's toolkit
 * {@link LockProvider} when {@code fencing-shedlock} and {@code shedlock-spring} are on the class
 * path, unless the application defines its own ShedLock {@code LockProvider}. With
 * {@code @EnableSchedulerLock} on the application, each {@code @SchedulerLock} task then runs under
 * a lease whose fencing token {@link dev.fencing.shedlock.FencedLocks#currentToken()} hands to a
 * fenced store. The bean stops its timer of pending {@code lockAtLeastFor} releases when the
 * context closes; the toolkit provider is closed by whoever created it.
 */
@AutoConfiguration(after = FencingLockAutoConfiguration.class)
@ConditionalOnClass(value = FencedShedLockProvider.class,
        name = "net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock")
@ConditionalOnBean(LockProvider.class)
public final class FencingShedLockAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(net.javacrumbs.shedlock.core.LockProvider.class)
    @ConditionalOnSingleCandidate(LockProvider.class)
    FencedShedLockProvider fencedShedLockProvider(LockProvider locks) {
        return FencedShedLockProvider.create(locks);
    }
}
