package io.atoll.client;

/**
 * Checks of requests before they are sent. A request a member would refuse, or that the protocol
 * cannot carry as written, fails where the client takes it, with an {@link InvalidArgumentException}
 * whose member address is null: nothing was sent, and the connection and the calls sharing it
 * carry on. (protobuf-java would otherwise send a string with an unpaired surrogate with '?' in
 * its place.) Sizes are checked against the member's limits ({@link Limits}).
 */
final class RequestChecks {
    /** The longest map name a member accepts, in UTF-8 bytes. */
    static final int MAX_MAP_NAME = 1024;

    private RequestChecks() {
    }

    /** A map name a member accepts: 1 to 1024 bytes of UTF-8 (no unpaired surrogate). */
    static void mapName(String name) {
        java.util.Objects.requireNonNull(name, "the map name must not be null");
        if (name.isEmpty()) {
            throw notSent("the map name is empty");
        }
        int n = utf8Length("the map name", name);
        if (n > MAX_MAP_NAME) {
            throw notSent("the map name has " + n + " bytes of UTF-8, at most " + MAX_MAP_NAME);
        }
    }

    /** A request string that must be encodable as UTF-8. */
    static void text(String field, String s) {
        if (s != null) {
            utf8Length(field, s);
        }
    }

    /** The length of s in UTF-8; an unpaired surrogate cannot be encoded. */
    private static int utf8Length(String field, String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (!Character.isSurrogate(c)) {
                n += 3;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                throw notSent(field + " has an unpaired surrogate at index " + i + " and cannot be encoded as UTF-8");
            }
        }
        return n;
    }

    private static InvalidArgumentException notSent(String reason) {
        return new InvalidArgumentException("request not sent: " + reason, null, -1, false, null);
    }
}
