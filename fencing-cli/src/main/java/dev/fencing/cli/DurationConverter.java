package dev.fencing.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code 500ms}, {@code 2s}, {@code 1m}, {@code 1h} or an ISO-8601 duration ({@code PT2S}). */
final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(text);
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
        }
        try {
            return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new TypeConversionException("'" + value + "' is not a duration; use e.g. 500ms, 2s, 1m or PT2S");
        }
    }

    /** Formats like {@code 1500 ms} for timelines. */
    static String format(Duration duration) {
        return duration.toMillis() + " ms";
    }
}
