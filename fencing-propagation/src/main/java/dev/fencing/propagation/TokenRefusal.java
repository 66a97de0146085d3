package dev.fencing.propagation;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.SafeListener;
import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How a fenced service says "refused" so that its callers get the store's exception back: an
 * RFC 9457 problem document for people and other clients, and one machine-readable header,
 * {@value #HTTP_HEADER} (gRPC trailer {@value #GRPC_KEY}), that the toolkit's clients turn back into
 * {@link StaleTokenException} or {@link ForeignTokenException} with the same key, tokens, mark and
 * policy. The two other failures a caller must tell apart from a plain error travel the same way:
 * a {@link ConcurrentUpdateException} (the token is fine, retry later) and a
 * {@link WriteOutcomeUnknownException} (the service's store may have written: re-read first).
 *
 * <pre>
 * HTTP/1.1 409 Conflict
 * Content-Type: application/problem+json
 * Fencing-Refusal: stale; token=42; lock=orders%2F7; key=order-7; mark=43; policy=MONOTONIC
 *
 * {"type":"https://fencing.dev/problems/stale-token","title":"Stale fencing token","status":409,
 *  "detail":"Stale fencing token for 'order-7': presented 42 ...","lock":"orders/7","key":"order-7",
 *  "presented":42,"mark":43,"policy":"MONOTONIC"}
 * </pre>
 *
 * <p>The problem types are identifiers, not pages: {@link #STALE_TYPE}, {@link #FOREIGN_TYPE},
 * {@link #MALFORMED_TYPE} (HTTP 400, gRPC {@code INVALID_ARGUMENT}), {@link #MISSING_TYPE}
 * (HTTP 428, gRPC {@code FAILED_PRECONDITION}), {@link #CONCURRENT_TYPE} (HTTP 409, gRPC
 * {@code ABORTED}) and {@link #UNKNOWN_TYPE} (HTTP 500, gRPC {@code UNKNOWN}).
 */
public final class TokenRefusal {

    private static final org.slf4j.Logger REFUSED = org.slf4j.LoggerFactory.getLogger(
            dev.fencing.core.spi.Refusals.LOGGER);

    /** The HTTP response header naming a refusal for the caller's client. */
    public static final String HTTP_HEADER = "Fencing-Refusal";

    /** The gRPC trailer key naming a refusal for the caller's client. */
    public static final String GRPC_KEY = "fencing-refusal";

    /** The media type of the problem documents (RFC 9457). */
    public static final String PROBLEM_MEDIA_TYPE = "application/problem+json";

    /** The problem type of a stale token (HTTP 409). */
    public static final String STALE_TYPE = "https://fencing.dev/problems/stale-token";

    /** The problem type of a token of another lock than the one fencing the key (HTTP 409). */
    public static final String FOREIGN_TYPE = "https://fencing.dev/problems/foreign-token";

    /** The problem type of a malformed token header (HTTP 400). */
    public static final String MALFORMED_TYPE = "https://fencing.dev/problems/malformed-token";

    /** The problem type of a missing token on a fenced endpoint (HTTP 428). */
    public static final String MISSING_TYPE = "https://fencing.dev/problems/missing-token";

    /**
     * The problem type of a fenced update that kept losing races on the service's store (HTTP 409):
     * the token was not refused, retrying later may succeed.
     */
    public static final String CONCURRENT_TYPE = "https://fencing.dev/problems/concurrent-update";

    /**
     * The problem type of a write whose outcome the service's store could not establish (HTTP 500):
     * it may or may not have landed; the caller re-reads before deciding.
     */
    public static final String UNKNOWN_TYPE = "https://fencing.dev/problems/write-outcome-unknown";

    private TokenRefusal() {}

    /**
     * The HTTP status for {@code refusal}: 409 for a stale or foreign token and for an update that
     * kept losing races, 400 for a malformed token, 428 for a missing one, 500 for a write whose
     * outcome is unknown.
     *
     * @throws IllegalArgumentException if {@code refusal} is none of the six
     */
    public static int httpStatus(RuntimeException refusal) {
        return kind(refusal).status;
    }

    /**
     * The {@value #HTTP_HEADER} value for a stale or foreign token, an update that kept losing
     * races, or a write whose outcome is unknown; empty for a malformed or missing token, which
     * the client cannot turn into a store exception.
     */
    public static Optional<String> header(RuntimeException refusal) {
        if (refusal instanceof StaleTokenException stale) {
            return Optional.of("stale; token=" + stale.presented().value() + "; lock="
                    + TokenHeader.encode(stale.presented().resource()) + "; key=" + TokenHeader.encode(stale.key())
                    + "; mark=" + stale.highWaterMark() + "; policy=" + stale.policy());
        }
        if (refusal instanceof ForeignTokenException foreign) {
            return Optional.of("foreign; token=" + foreign.presented().value() + "; lock="
                    + TokenHeader.encode(foreign.presented().resource()) + "; key=" + TokenHeader.encode(foreign.key())
                    + "; bound=" + TokenHeader.encode(foreign.boundResource()));
        }
        if (refusal instanceof ConcurrentUpdateException busy) {
            return Optional.of("concurrent; key=" + TokenHeader.encode(busy.key()) + "; attempts=" + busy.attempts());
        }
        if (refusal instanceof WriteOutcomeUnknownException unknown) {
            return Optional.of("unknown; key=" + TokenHeader.encode(unknown.key()));
        }
        kind(refusal);
        return Optional.empty();
    }

    /**
     * The RFC 9457 problem document for {@code refusal}, as JSON.
     *
     * @throws IllegalArgumentException if {@code refusal} is not a stale, foreign, malformed or missing token
     */
    public static String problemJson(RuntimeException refusal) {
        Kind kind = kind(refusal);
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("type", kind.type);
        members.put("title", kind.title);
        members.put("status", kind.status);
        members.put("detail", String.valueOf(refusal.getMessage()));
        if (refusal instanceof StaleTokenException stale) {
            members.put("lock", stale.presented().resource());
            members.put("key", stale.key());
            members.put("presented", stale.presented().value());
            members.put("mark", stale.highWaterMark());
            members.put("policy", stale.policy().name());
        } else if (refusal instanceof ForeignTokenException foreign) {
            members.put("lock", foreign.presented().resource());
            members.put("key", foreign.key());
            members.put("presented", foreign.presented().value());
            members.put("boundLock", foreign.boundResource());
        } else if (refusal instanceof ConcurrentUpdateException busy) {
            members.put("key", busy.key());
            members.put("attempts", busy.attempts());
        } else if (refusal instanceof WriteOutcomeUnknownException unknown) {
            members.put("key", unknown.key());
        }
        StringBuilder json = new StringBuilder(256).append('{');
        members.forEach((name, value) -> {
            if (json.length() > 1) {
                json.append(',');
            }
            appendString(json, name);
            json.append(':');
            if (value instanceof String text) {
                appendString(json, text);
            } else {
                json.append(value);
            }
        });
        return json.append('}').toString();
    }

    /**
     * The store exception a {@value #HTTP_HEADER} value stands for.
     *
     * @throws MalformedTokenException if {@code value} is not a refusal in the form above
     */
    public static FencingException read(String value) {
        if (value == null || value.length() > 4 * TokenHeader.MAX_LENGTH) {
            throw new MalformedTokenException("malformed " + HTTP_HEADER + ": " + (value == null ? "null"
                    : value.length() + " characters long"));
        }
        String[] parts = value.split(";", -1);
        String kind = TokenHeader.trimOws(parts[0]);
        Map<String, String> parameters = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String parameter = TokenHeader.trimOws(parts[i]);
            int equals = parameter.indexOf('=');
            if (equals <= 0 || parameters.put(parameter.substring(0, equals), parameter.substring(equals + 1)) != null) {
                throw malformed(value, "'" + TokenHeader.printable(parameter) + "' is not a NAME=VALUE given once");
            }
        }
        try {
            if (kind.equals("concurrent") && parameters.size() == 2) {
                ConcurrentUpdateException busy = ConcurrentUpdateException.gaveUp(
                        TokenHeader.decode(value, required(value, parameters, "key")),
                        Integer.parseInt(required(value, parameters, "attempts")));
                busy.initCause(new ServiceAnswer("a service answered that its store kept losing races"));
                return busy;
            }
            if (kind.equals("unknown") && parameters.size() == 1) {
                return WriteOutcomeUnknownException.of(TokenHeader.decode(value, required(value, parameters, "key")),
                        new IOException("the service answered that its store's reply to this write was lost"));
            }
            FencingToken presented = FencingToken.of(TokenHeader.decode(value, required(value, parameters, "lock")),
                    Long.parseLong(required(value, parameters, "token")));
            String key = TokenHeader.decode(value, required(value, parameters, "key"));
            if (kind.equals("stale") && parameters.size() == 5) {
                return StaleTokenException.of(key, presented, Long.parseLong(required(value, parameters, "mark")),
                        Policy.valueOf(required(value, parameters, "policy")));
            }
            if (kind.equals("foreign") && parameters.size() == 4) {
                return ForeignTokenException.of(key, presented,
                        TokenHeader.decode(value, required(value, parameters, "bound")));
            }
        } catch (IllegalArgumentException e) {
            throw new MalformedTokenException("malformed " + HTTP_HEADER + " '" + TokenHeader.printable(value) + "': "
                    + e.getMessage(), e);
        }
        throw malformed(value, "expected 'stale; token=; lock=; key=; mark=; policy=',"
                + " 'foreign; token=; lock=; key=; bound=', 'concurrent; key=; attempts=' or 'unknown; key='");
    }

    /**
     * Whether {@code refusal}, thrown while serving a request that carried {@code sent}, is that
     * request's own refusal to answer as such: a stale or foreign token only if it is the token the
     * request carried (a handler's own call to another fenced service, refused for the handler's
     * token, is not the caller's refusal: the caller's write may well have landed); a
     * {@link ConcurrentUpdateException} that another service answered (one {@link #read} rebuilt: the
     * handler's own call elsewhere lost races) is not either, since "nothing was written" holds for
     * that service's store, not for the handler's own writes; the other refusals are always the
     * request's (a relayed {@link WriteOutcomeUnknownException} included: if the handler's call may
     * have landed, so may the request).
     */
    public static boolean concerns(RuntimeException refusal, @Nullable FencingToken sent) {
        if (refusal instanceof ConcurrentUpdateException && refusal.getCause() instanceof ServiceAnswer) {
            return false;
        }
        return presents(refusal, sent);
    }

    /** Whether {@code refusal} is not a stale or foreign token, or one of {@code sent}. */
    private static boolean presents(RuntimeException refusal, @Nullable FencingToken sent) {
        if (refusal instanceof StaleTokenException stale) {
            return stale.presented().equals(sent);
        }
        if (refusal instanceof ForeignTokenException foreign) {
            return foreign.presented().equals(sent);
        }
        return true;
    }

    /**
     * The store exception a {@value #HTTP_HEADER} value stands for, if it is a refusal of the
     * request that carried {@code sentHeader} (its {@value TokenHeader#HTTP_HEADER} value, or null):
     * a stale or foreign refusal naming another token than the one sent is not the caller's (a
     * service that relays a refusal of its own call elsewhere), and comes back empty, as does a
     * malformed value; the clients then pass the answer on as the plain error it is.
     */
    public static Optional<FencingException> readFor(String value, @Nullable String sentHeader) {
        FencingException refusal;
        @Nullable FencingToken sent;
        try {
            refusal = read(value);
            sent = sentHeader == null ? null : TokenHeader.parse(sentHeader);
        } catch (MalformedTokenException e) {
            return Optional.empty();
        }
        return presents(refusal, sent) ? Optional.of(refusal) : Optional.empty();
    }

    /**
     * The RFC 9457 document (HTTP 500, no {@value #HTTP_HEADER}) for a refusal that is not the
     * request's own ({@link #concerns}): a token the handler presented elsewhere was refused. The
     * caller learns the request failed, and nothing that would make it think its own token was
     * refused.
     */
    public static String notTheCallersProblemJson(RuntimeException refusal) {
        StringBuilder json = new StringBuilder(256).append('{');
        appendString(json, "type");
        json.append(':');
        appendString(json, "about:blank");
        json.append(',');
        appendString(json, "title");
        json.append(':');
        appendString(json, "Internal Server Error");
        json.append(",\"status\":500,");
        appendString(json, "detail");
        json.append(':');
        appendString(json, "the handler's own fenced write elsewhere, not this request's token, was refused: "
                + refusal.getMessage());
        return json.append('}').toString();
    }

    /**
     * Tells {@code listener} of a refusal a client received, as a store tells its own listener:
     * {@code onStaleWriteRejected} for a stale token, {@code onWriteFailed} for the others; returns
     * {@code refusal}, for the client to throw.
     */
    public static FencingException reported(FencingException refusal, FencingListener listener) {
        // the caller's side of a refusal, logged as the service logs its own (logger dev.fencing.refused)
        REFUSED.warn("the service refused the call: {}", refusal.getMessage());
        FencingListener safe = SafeListener.of(listener);
        if (refusal instanceof StaleTokenException stale) {
            safe.onStaleWriteRejected(stale);
        } else if (refusal instanceof ForeignTokenException foreign) {
            safe.onWriteFailed(foreign.key(), foreign);
        } else if (refusal instanceof ConcurrentUpdateException busy) {
            safe.onWriteFailed(busy.key(), busy);
        } else if (refusal instanceof WriteOutcomeUnknownException unknown) {
            safe.onWriteFailed(unknown.key(), unknown);
        }
        return refusal;
    }

    /**
     * The cause of a refusal {@link #read} rebuilt from a service's answer, so that a handler that
     * lets it out is not taken to have lost the race itself.
     */
    private static final class ServiceAnswer extends IOException {
        private static final long serialVersionUID = 1L;

        ServiceAnswer(String message) {
            super(message);
        }
    }

    private static String required(String value, Map<String, String> parameters, String name) {
        String found = parameters.get(name);
        if (found == null) {
            throw malformed(value, "no '" + name + "='");
        }
        return found;
    }

    private static MalformedTokenException malformed(String value, String why) {
        return new MalformedTokenException("malformed " + HTTP_HEADER + " '" + TokenHeader.printable(value) + "': " + why);
    }

    private static void appendString(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }

    private enum Kind {
        STALE(STALE_TYPE, "Stale fencing token", 409),
        FOREIGN(FOREIGN_TYPE, "Fencing token of another lock", 409),
        MALFORMED(MALFORMED_TYPE, "Malformed fencing token", 400),
        MISSING(MISSING_TYPE, "Fencing token required", 428),
        CONCURRENT(CONCURRENT_TYPE, "Concurrent update", 409),
        UNKNOWN(UNKNOWN_TYPE, "Write outcome unknown", 500);

        final String type;
        final String title;
        final int status;

        Kind(String type, String title, int status) {
            this.type = type;
            this.title = title;
            this.status = status;
        }
    }

    private static Kind kind(RuntimeException refusal) {
        if (refusal instanceof StaleTokenException) {
            return Kind.STALE;
        }
        if (refusal instanceof ForeignTokenException) {
            return Kind.FOREIGN;
        }
        if (refusal instanceof MalformedTokenException) {
            return Kind.MALFORMED;
        }
        if (refusal instanceof MissingTokenException) {
            return Kind.MISSING;
        }
        if (refusal instanceof ConcurrentUpdateException) {
            return Kind.CONCURRENT;
        }
        if (refusal instanceof WriteOutcomeUnknownException) {
            return Kind.UNKNOWN;
        }
        throw new IllegalArgumentException("not a token refusal: " + refusal);
    }

    /**
     * The refusal in {@code failure} or its causes (a store's exception wrapped by a framework), or
     * {@code null} if there is none. A cycle of causes ends the walk.
     */
    public static @Nullable RuntimeException find(@Nullable Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof StaleTokenException || t instanceof ForeignTokenException
                    || t instanceof MalformedTokenException || t instanceof MissingTokenException
                    || t instanceof ConcurrentUpdateException || t instanceof WriteOutcomeUnknownException) {
                return (RuntimeException) t;
            }
        }
        return null;
    }
}
