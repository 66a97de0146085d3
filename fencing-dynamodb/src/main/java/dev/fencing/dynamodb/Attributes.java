package dev.fencing.dynamodb;

import java.nio.charset.StandardCharsets;

/** Validation of attribute names the wrapper writes. */
final class Attributes {

    private Attributes() {}

    static String requireName(String what, String name) {
        if (name == null || name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > 255
                || name.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(what + " must be 1 to 255 bytes without control characters, got '" + name + "'");
        }
        return name;
    }
}
