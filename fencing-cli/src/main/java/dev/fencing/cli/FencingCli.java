package dev.fencing.cli;

import dev.fencing.cli.commands.BenchCommand;
import dev.fencing.cli.commands.CheckHistoryCommand;
import dev.fencing.cli.commands.DemoCommand;
import dev.fencing.cli.commands.InspectCommand;
import dev.fencing.cli.commands.LeaderCommand;
import dev.fencing.cli.commands.TortureCommand;
import dev.fencing.cli.commands.WorkerCommand;

import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StoreUnavailableException;
import io.lettuce.core.RedisException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/**
 * The {@code fencing} command line: {@code demo}, {@code worker}, {@code torture},
 * {@code check-history}, {@code inspect}, {@code leader} and {@code bench}. Exit codes: 0 ok, 1 an invariant was violated, 2 bad usage, 3 a server could
 * not be reached, 4 an unexpected error (a bug: please report it with the stack trace), 5 a server that
 * does not keep a promise the fence rests on ({@code inspect --store s3}).
 */
@Command(name = "fencing", mixinStandardHelpOptions = true, version = "fencing toolkit 0.1.0-SNAPSHOT",
        subcommands = {DemoCommand.class, WorkerCommand.class, TortureCommand.class, CheckHistoryCommand.class,
                InspectCommand.class, LeaderCommand.class, BenchCommand.class, HelpCommand.class},
        description = {"Fencing tokens for distributed locks: see a zombie writer refused, run fenced workers, torture"
                + " a lock and store pair with pauses and faults, check a recorded history, inspect what a store holds."},
        footer = {"", "Exit codes: 0 ok, 1 invariant violated, 2 bad usage, 3 server unreachable, 4 unexpected error,",
                "5 a server unsafe for fencing (inspect --store s3)."})
public final class FencingCli implements Runnable {

    /** Exit code of an error the CLI did not expect. */
    static final int UNEXPECTED = 4;

    @picocli.CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: demo, worker, torture,"
                + " inspect, leader (or --help)");
    }

    /** gRPC (under jetcd) logs through java.util.logging; held here, since that API keeps its loggers weakly. */
    private static final java.util.logging.Logger GRPC_LOG = java.util.logging.Logger.getLogger("io.grpc");

    /** Curator's switch for its own connection-loss lines (DebugUtils.PROPERTY_DONT_LOG_CONNECTION_ISSUES). */
    static final String CURATOR_QUIET = "curator-dont-log-connection-problems";

    /** The connection options only a store uses (the lock providers take --redis-uri, --pg-url, ...). */
    private static final java.util.List<String> STORE_ONLY_OPTIONS = java.util.List.of("--redis-store-uri",
            "--s3-endpoint", "--azure-blob-endpoint", "--gcs-endpoint");

    /** Runs the CLI and exits with its exit code. */
    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "error"));
        GRPC_LOG.setLevel(java.util.logging.Level.WARNING); // its INFO lines (transport probes) are not for users
        // the Azure SDK logs every exception it throws at ERROR, with a trace; the CLI reports the failure in one line
        System.setProperty("org.slf4j.simpleLogger.log.com.azure",
                System.getProperty("org.slf4j.simpleLogger.log.com.azure", "off"));
        // Curator logs every failed background operation of a lost connection at ERROR, with a trace (72 lines
        // after three pauses); the ZooKeeper provider tells each loss once, at WARN, in the toolkit's words
        System.setProperty(CURATOR_QUIET, System.getProperty(CURATOR_QUIET, "true"));
        System.setProperty("org.slf4j.simpleLogger.log.dev.fencing.zookeeper",
                System.getProperty("org.slf4j.simpleLogger.log.dev.fencing.zookeeper", "warn"));
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the CLI with the given streams; returns the exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new FencingCli());
        // a candidate opens a lock and no store: the store-only options would only mislead in its --help
        CommandLine.Model.CommandSpec leader = cli.getSubcommands().get("leader").getCommandSpec();
        for (String storeOnly : STORE_ONLY_OPTIONS) {
            CommandLine.Model.OptionSpec option = leader.findOption(storeOnly);
            if (option != null) {
                leader.remove(option);
            }
        }
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println(commandLine.getCommandSpec().qualifiedName() + ": " + describe(e));
            if (exitCodeOf(e) == UNEXPECTED) {
                e.printStackTrace(commandLine.getErr());
            }
            commandLine.getErr().flush();
            return exitCodeOf(e);
        });
        cli.setParameterExceptionHandler((e, params) -> {
            CommandLine commandLine = e.getCommandLine();
            // the qualified name is "fencing" or "fencing demo": the top command's name is not repeated
            String name = commandLine.getCommandSpec().qualifiedName();
            commandLine.getErr().println(name + ": " + e.getMessage());
            commandLine.getErr().println("Run '" + name + " --help' for the options.");
            commandLine.getErr().flush();
            return ExitCode.USAGE;
        });
        return cli.execute(args);
    }

    private static String describe(Exception e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    private static int exitCodeOf(Exception e) {
        if (e instanceof CliException cli) {
            return cli.exitCode();
        }
        if (e instanceof LockUnavailableException || e instanceof StoreUnavailableException || e instanceof RedisException) {
            return ExitCode.UNREACHABLE;
        }
        if (e instanceof IllegalArgumentException) {
            return ExitCode.USAGE;
        }
        return UNEXPECTED;
    }
}
