package dev.fencing.cli.commands;

import dev.fencing.cli.backends.ConnectionOptions;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** What every command has: {@code --json}, the connection options, and its output streams. */
abstract class FencingCommand implements Callable<Integer> {

    @Option(names = "--json", description = "Print one JSON document instead of text.")
    boolean json;

    @Mixin
    ConnectionOptions connections;

    @Spec
    CommandSpec spec;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
