package io.atoll.client.serialization;

/**
 * A string that cannot be serialized exactly: it holds an unpaired UTF-16 surrogate, which
 * UTF-8 cannot carry (Java's encoder would write '?' in its place, so that {@code "\uD800"}
 * and {@code "?"} would become the same key). Nothing is sent.
 */
public class InvalidStringException extends AtollSerializationException {
    private static final long serialVersionUID = 1L;
    private final int index;

    public InvalidStringException(String value, int index) {
        super("the string " + quote(value) + " has an unpaired surrogate at index " + index + " and cannot be serialized exactly as UTF-8");
        this.index = index;
    }

    /** The index in the string of the unpaired surrogate. */
    public int getIndex() {
        return index;
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < Math.min(s.length(), 32); i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c) || c < 0x20) {
                b.append(String.format("\\u%04X", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append(s.length() > 32 ? "\"…" : "\"").toString();
    }
}
