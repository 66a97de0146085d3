package dev.fencing.testkit.containers;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/** The condition behind {@link RequiresDocker}; prints the reason when it skips. */
final class DockerCondition implements ExecutionCondition {

    private static volatile @Nullable Boolean available;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (isDockerAvailable()) {
            return ConditionEvaluationResult.enabled("a Docker engine answers");
        }
        String reason = "no Docker engine answers on this machine, so the Testcontainers suite "
                + context.getDisplayName() + " is skipped; the same tests run against the testkit's embedded servers";
        System.err.println("SKIPPED: " + reason);
        return ConditionEvaluationResult.disabled(reason);
    }

    static boolean isDockerAvailable() {
        Boolean known = available;
        if (known == null) {
            try {
                known = DockerClientFactory.instance().isDockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                known = false;
            }
            available = known;
        }
        return known;
    }
}
