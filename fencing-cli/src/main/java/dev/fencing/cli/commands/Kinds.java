package dev.fencing.cli.commands;

import dev.fencing.cli.backends.LockKind;
import dev.fencing.cli.backends.StoreKind;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Lower-case names for {@link LockKind} and {@link StoreKind} on the command line. */
final class Kinds {

    private Kinds() {}

    static final class Lock implements ITypeConverter<LockKind> {
        @Override
        public LockKind convert(String value) {
            return Arrays.stream(LockKind.values()).filter(k -> k.cliName().equals(value.toLowerCase(Locale.ROOT)))
                    .findFirst().orElseThrow(() -> new TypeConversionException("'" + value + "' is not a lock provider;"
                            + " choose one of " + names(LockKind.values())));
        }
    }

    static final class Store implements ITypeConverter<StoreKind> {
        @Override
        public StoreKind convert(String value) {
            return Arrays.stream(StoreKind.values()).filter(k -> k.cliName().equals(value.toLowerCase(Locale.ROOT)))
                    .findFirst().orElseThrow(() -> new TypeConversionException("'" + value + "' is not a store;"
                            + " choose one of " + names(StoreKind.values())));
        }
    }

    static final class LockNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(LockKind.values()).map(LockKind::cliName).iterator();
        }
    }

    static final class StoreNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(StoreKind.values()).map(StoreKind::cliName).iterator();
        }
    }

    private static String names(Enum<?>[] kinds) {
        return String.join(", ", Arrays.stream(kinds).map(k -> k.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList());
    }
}
