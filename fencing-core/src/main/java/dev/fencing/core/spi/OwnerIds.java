package dev.fencing.core.spi;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Owner ids: 128 bits from {@link SecureRandom}, as 32 lower-case hex digits. */
public final class OwnerIds {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private OwnerIds() {}

    /** A fresh, unguessable owner id. */
    public static String random() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }
}
