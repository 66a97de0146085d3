package dev.fencing.propagation;

import dev.fencing.core.FencingToken;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The wire form of a fencing token: one HTTP header, {@value #HTTP_HEADER}, and one gRPC
 * metadata key, {@value #GRPC_KEY}, with the same value:
 *
 * <pre>
 * Fencing-Token: 42; lock=orders%2F7
 *
 * value = token OWS ";" OWS "lock=" lock
 * token = 1 to 19 digits, no sign, no leading zero: 1 to 9223372036854775807
 * lock  = the lock's name in UTF-8, percent-encoded (RFC 3986): A-Z a-z 0-9 - . _ ~ as they are,
 *         every other byte as %XX
 * </pre>
 *
 * <p>Every name the toolkit accepts as a lock has exactly one meaning on the wire: the name is
 * decoded byte for byte, so {@code %2f} and {@code %2F} are the same lock and {@code Orders} and
 * {@code orders} are not. {@link #parse} refuses anything else — a second parameter, a sign, a
 * leading zero, a value past {@link Long#MAX_VALUE}, bytes that are not UTF-8, a name the toolkit
 * would not accept, a value longer than {@value #MAX_LENGTH} characters — with a
 * {@link MalformedTokenException} naming what is wrong.
 *
 * <p><b>A token is not a credential.</b> It proves the order of lock grants, not who the caller
 * is: anyone can write any number in a header. The receiving service authenticates its callers by
 * its usual means (mTLS, OAuth) and only then honours their tokens; a caller allowed to call it can
 * always present a large token and so refuse everyone else's writes to that lock's data.
 */
public final class TokenHeader {

    /** The HTTP request header that carries the caller's token. */
    public static final String HTTP_HEADER = "Fencing-Token";

    /** The gRPC metadata key (ASCII) that carries the caller's token. */
    public static final String GRPC_KEY = "fencing-token";

    /**
     * The longest header value accepted: a 256-character name of four-byte characters,
     * percent-encoded, with the longest token, fits.
     */
    public static final int MAX_LENGTH = 4096;

    private static final String LOCK_PARAMETER = "lock=";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private TokenHeader() {}

    /** The header value for {@code token}: {@code "42; lock=orders%2F7"}. */
    public static String format(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        return token.value() + "; " + LOCK_PARAMETER + encode(token.resource());
    }

    /**
     * The token in a header value.
     *
     * @throws MalformedTokenException if {@code value} is not exactly a token in the form above
     */
    public static FencingToken parse(String value) {
        if (value == null) {
            throw new MalformedTokenException("no " + HTTP_HEADER + " value (null)");
        }
        if (value.length() > MAX_LENGTH) {
            throw new MalformedTokenException(HTTP_HEADER + " value is " + value.length() + " characters long; at most "
                    + MAX_LENGTH + " are accepted");
        }
        String trimmed = trimOws(value);
        int semicolon = trimmed.indexOf(';');
        if (semicolon < 0) {
            throw malformed(value, "expected TOKEN; lock=NAME, found no ';'");
        }
        long number = parseValue(value, trimOws(trimmed.substring(0, semicolon)));
        String parameter = trimOws(trimmed.substring(semicolon + 1));
        if (!parameter.startsWith(LOCK_PARAMETER)) {
            throw malformed(value, "expected 'lock=' after ';'");
        }
        String lock = decode(value, parameter.substring(LOCK_PARAMETER.length()));
        try {
            return FencingToken.of(lock, number);
        } catch (IllegalArgumentException e) {
            throw new MalformedTokenException("malformed " + HTTP_HEADER + " '" + printable(value) + "': " + e.getMessage(),
                    e);
        }
    }

    private static long parseValue(String header, String digits) {
        if (digits.isEmpty()) {
            throw malformed(header, "the token is missing before ';'");
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                throw malformed(header, "the token must be decimal digits only (no sign, no spaces), found '"
                        + printable(digits) + "'");
            }
        }
        if (digits.charAt(0) == '0') {
            throw malformed(header, "the token must be at least 1 and written without leading zeros, found '" + digits + "'");
        }
        if (digits.length() > 19 || (digits.length() == 19 && digits.compareTo(Long.toString(Long.MAX_VALUE)) > 0)) {
            throw malformed(header, "the token " + digits + " is larger than " + Long.MAX_VALUE);
        }
        return Long.parseLong(digits);
    }

    static String encode(String name) {
        StringBuilder out = new StringBuilder(name.length() + 16);
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (isUnreserved(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    static String decode(String header, String encoded) {
        if (encoded.isEmpty()) {
            throw malformed(header, "the lock name after 'lock=' is empty");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                int high = i + 2 < encoded.length() ? hexDigit(encoded.charAt(i + 1)) : -1;
                int low = high >= 0 ? hexDigit(encoded.charAt(i + 2)) : -1;
                if (low < 0) {
                    throw malformed(header, "'%' at index " + i + " of the lock name is not followed by two hex digits");
                }
                bytes.write(high * 16 + low);
                i += 2;
            } else if (c < 128 && isUnreserved(c)) {
                bytes.write(c);
            } else {
                throw malformed(header, "the lock name may hold only A-Z a-z 0-9 - . _ ~ and %XX escapes, found '"
                        + printable(String.valueOf(c)) + "' at index " + i);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new MalformedTokenException("malformed " + HTTP_HEADER + " '" + printable(header)
                    + "': the lock name's bytes are not UTF-8", e);
        }
    }

    /** The value of an ASCII hex digit, or -1: not {@code Character.digit}, which takes other scripts' digits. */
    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }

    private static boolean isUnreserved(int c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                || c == '_' || c == '~';
    }

    /** Optional whitespace (RFC 9110: spaces and tabs) at both ends removed. */
    static String trimOws(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
            end--;
        }
        return s.substring(start, end);
    }

    private static MalformedTokenException malformed(String header, String why) {
        return new MalformedTokenException("malformed " + HTTP_HEADER + " '" + printable(header) + "': " + why
                + " (the form is TOKEN; lock=NAME, e.g. '42; lock=orders%2F7')");
    }

    /** The value for a message: control characters shown as '?', cut at 120 characters. */
    static String printable(String value) {
        String shown = value.length() > 120 ? value.substring(0, 120) + "…" : value;
        StringBuilder out = new StringBuilder(shown.length());
        shown.codePoints().forEach(c -> out.append(Character.isISOControl(c) ? "?" : new String(Character.toChars(c))));
        return out.toString();
    }
}
