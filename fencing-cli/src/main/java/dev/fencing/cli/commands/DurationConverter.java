package dev.fencing.cli.commands;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads {@code 500ms}, {@code 2s}, {@code 1m}, {@code 1h} or an ISO-8601 duration ({@code PT2S}).
 * A negative duration is refused as such; each option checks its own range with
 * {@link #requireBetween}.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("(-?)(\\d{1,9})(ms|s|m|h|d)");
    private static final String FORMS = "500ms, 2s, 1m, 1h, 1d or PT2S";

    @Override
    public Duration convert(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(text);
        Duration duration;
        if (m.matches()) {
            long amount = Long.parseLong(m.group(2));
            duration = switch (m.group(3)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
            if (!m.group(1).isEmpty()) {
                duration = duration.negated();
            }
        } else {
            try {
                duration = Duration.parse(value.trim().toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + value + "' is not a duration; use e.g. " + FORMS);
            }
        }
        if (duration.isNegative()) {
            throw new TypeConversionException("'" + value + "' is negative; a duration here is zero or more, e.g. "
                    + FORMS);
        }
        return duration;
    }

    /**
     * Refuses {@code value} of {@code option} outside {@code [min, max]}, before any I/O.
     *
     * @throws CliException with {@link ExitCode#USAGE}, naming the option, the range and the value
     */
    public static Duration requireBetween(String option, Duration value, Duration min, Duration max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new CliException(ExitCode.USAGE, option + " must be between " + text(min) + " and " + text(max)
                    + ", got " + text(value));
        }
        return value;
    }

    /** The shortest of this converter's forms that says {@code duration} exactly: {@code 100ms}, {@code 2s}, {@code 7d}. */
    static String text(Duration duration) {
        long millis = duration.toMillis();
        if (millis == 0 || Duration.ofMillis(millis).compareTo(duration) != 0) {
            return duration.isZero() ? "0ms" : duration.toString();
        }
        long[] units = {86_400_000, 3_600_000, 60_000, 1000};
        String[] names = {"d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (millis % units[i] == 0) {
                return millis / units[i] + names[i];
            }
        }
        return millis + "ms";
    }

    /** Formats like {@code 1500 ms} for timelines. */
    static String format(Duration duration) {
        return duration.toMillis() + " ms";
    }
}
