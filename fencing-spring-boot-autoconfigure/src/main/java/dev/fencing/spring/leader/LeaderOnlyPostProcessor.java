package dev.fencing.spring.leader;

import dev.fencing.core.leader.Leadership;
import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies the beans with {@link LeaderOnly} methods so that those methods run only on the leader,
 * with the term's epoch bound for the call. Registered by the Spring Boot auto-configuration; without
 * Boot, declare it as a {@code static @Bean}. Ordered before {@code @Scheduled}'s post-processor, so the
 * scheduler calls the proxy.
 *
 * <p>A {@code @LeaderOnly} method that does not return {@code void} fails the start (a follower's call
 * would have nothing to return).
 */
public final class LeaderOnlyPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(LeaderOnly.class);

    private static final boolean PROPAGATION = ClassUtils.isPresent("dev.fencing.propagation.FencingContext",
            LeaderOnlyPostProcessor.class.getClassLoader());

    /**
     * A post-processor whose methods follow the leaderships {@code leaderships} supplies (the
     * application's {@code Leadership} beans, looked up at the first call).
     */
    public LeaderOnlyPostProcessor(Supplier<List<Leadership>> leaderships) {
        if (leaderships == null) {
            throw new IllegalArgumentException("leaderships must not be null");
        }
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, LeaderOnly.class, true),
                new Interceptor(leaderships));
        setProxyTargetClass(true);
        setBeforeExistingAdvisors(true);
        setOrder(Ordered.HIGHEST_PRECEDENCE);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        ReflectionUtils.doWithMethods(type, method -> {
            if (AnnotatedElementUtils.hasAnnotation(method, LeaderOnly.class) && method.getReturnType() != void.class) {
                throw new IllegalStateException("@LeaderOnly " + type.getName() + "." + method.getName() + " returns "
                        + method.getReturnType().getSimpleName() + ": a follower's call would have nothing to return;"
                        + " make it void");
            }
        });
        return super.postProcessAfterInitialization(bean, beanName);
    }

    /** Runs the call on the leader only, inside the term's binding. */
    private static final class Interceptor implements MethodInterceptor {
        private final Supplier<List<Leadership>> leaderships;

        Interceptor(Supplier<List<Leadership>> leaderships) {
            this.leaderships = leaderships;
        }

        @Override
        @SuppressWarnings("try") // the scope is the binding: opened and closed around the call
        public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
            Method method = invocation.getMethod();
            LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
            Leadership leadership = leadershipFor(annotation == null ? "" : annotation.value(), method);
            var term = leadership.currentTerm();
            if (term.isEmpty()) {
                LOG.debug("{} skipped: this instance does not lead '{}'", method.getName(), leadership.lockName());
                return null;
            }
            if (!PROPAGATION) {
                return invocation.proceed();
            }
            try (var scope = dev.fencing.propagation.FencingContext.bind(term.get().epoch())) {
                return invocation.proceed();
            }
        }

        private Leadership leadershipFor(String lockName, Method method) {
            List<Leadership> all = leaderships.get();
            if (lockName.isEmpty()) {
                if (all.size() == 1) {
                    return all.get(0);
                }
                throw new IllegalStateException("@LeaderOnly " + method.getDeclaringClass().getSimpleName() + "."
                        + method.getName() + " needs exactly one Leadership bean, found " + all.size() + (all.isEmpty()
                        ? ": set fencing.leadership.name (Spring Boot) or define one"
                        : ": name its lock, @LeaderOnly(\"lock\")"));
            }
            return all.stream().filter(candidate -> candidate.lockName().equals(lockName)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("@LeaderOnly(\"" + lockName + "\") on "
                            + method.getDeclaringClass().getSimpleName() + "." + method.getName() + ": no Leadership"
                            + " bean campaigns for that lock; found " + all.stream().map(Leadership::lockName).toList()));
        }
    }
}
