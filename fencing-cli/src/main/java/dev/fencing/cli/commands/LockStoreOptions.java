package dev.fencing.cli.commands;

import dev.fencing.cli.backends.LockKind;
import dev.fencing.cli.backends.StoreKind;

import picocli.CommandLine.Option;

/** {@code --lock} and {@code --store}, shared by the commands that run a lock against a store. */
final class LockStoreOptions {

    @Option(names = "--lock", paramLabel = "L", defaultValue = "redis", converter = Kinds.Lock.class,
            completionCandidates = Kinds.LockNames.class,
            description = "Lock provider: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    LockKind lock;

    @Option(names = "--store", paramLabel = "S", defaultValue = "redis", converter = Kinds.Store.class,
            completionCandidates = Kinds.StoreNames.class,
            description = "Fenced store: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    StoreKind store;
}
