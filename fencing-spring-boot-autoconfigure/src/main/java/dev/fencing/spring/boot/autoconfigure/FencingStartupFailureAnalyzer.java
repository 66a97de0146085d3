package dev.fencing.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Puts a {@link FencingStartupException} in Boot's "APPLICATION FAILED TO START" box: what is wrong
 * and what to change, instead of a stack trace whose useful line is a few causes down. Ordered first,
 * so that Boot's own analyzers, which come first in a packaged jar's class path, do not answer for it.
 */
final class FencingStartupFailureAnalyzer extends AbstractFailureAnalyzer<FencingStartupException> implements Ordered {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, FencingStartupException cause) {
        return new FailureAnalysis(String.valueOf(cause.getMessage()), cause.action(), cause);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
