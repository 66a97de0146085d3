package dev.fencing.cli.commands;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.cli.Json;

import dev.fencing.testkit.history.CheckResult;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.Violation;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Checks a history file written by {@code torture --history} (or by the testkit's
 * {@code History.writeTo}) with the testkit's {@link HistoryChecker}: exit 0 if no rule is
 * broken, 1 with the offending operations if one is.
 */
@Command(name = "check-history", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Checks a recorded history of store calls: stale writes accepted, marks going backwards,"
                + " refusals naming wrong marks, stale or vanished reads, lost or doubled increments.",
                "Exit 0 if none, 1 with the offending operations."})
public final class CheckHistoryCommand implements Callable<Integer> {

    @Parameters(paramLabel = "FILE", description = "A history written by `fencing torture --history FILE`.")
    Path file;

    @Option(names = "--json", description = "Print one JSON document instead of text.")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!Files.isRegularFile(file)) {
            throw new CliException(ExitCode.USAGE, "no history file at " + file);
        }
        History history;
        try {
            history = History.readFrom(file);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, e.getMessage());
        }
        CheckResult result = HistoryChecker.check(history);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("file", file.toString());
            report.put("policy", history.policy().name());
            report.put("operations", history.operations().size());
            report.put("keys", history.byKey().size());
            result.writeOutcomes().forEach((outcome, count) -> report.put("writes" + outcome, count));
            List<String> violations = result.violations().stream().map(Violation::toString).toList();
            report.put("violations", violations);
            report.put("ok", result.passed());
            Json.print(out, report);
        } else {
            out.println(result.report());
        }
        out.flush();
        return result.passed() ? ExitCode.OK : ExitCode.INVARIANT_VIOLATED;
    }
}
