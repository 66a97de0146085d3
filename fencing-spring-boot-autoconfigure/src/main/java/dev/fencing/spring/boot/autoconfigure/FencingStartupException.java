package dev.fencing.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * A start-up failure of the auto-configuration that knows its fix: its message says what is wrong
 * (the property, the value, what is allowed), its {@link #action()} what to change.
 * {@link FencingStartupFailureAnalyzer} puts both in Boot's "APPLICATION FAILED TO START" box.
 */
final class FencingStartupException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String action;

    FencingStartupException(String description, String action, @Nullable Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /** What to change so that the application starts. */
    String action() {
        return action;
    }
}
