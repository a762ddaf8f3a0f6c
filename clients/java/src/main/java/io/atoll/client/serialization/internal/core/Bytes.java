package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.MalformedDataException;
import io.atoll.client.serialization.TruncatedDataException;

import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked big-endian accessors over a byte array. Every read takes the
 * exclusive limit of the region it may touch and throws
 * {@link TruncatedDataException} instead of running past it.
 */
public final class Bytes {
    private Bytes() {
    }

    public static void check(int pos, int size, int limit) {
        if (pos < 0 || size < 0 || pos > limit - size) {
            throw new TruncatedDataException("need " + size + " byte(s) at position " + pos + " but the region ends at " + limit);
        }
    }

    public static byte readByte(byte[] b, int p, int limit) {
        check(p, 1, limit);
        return b[p];
    }

    public static short readShort(byte[] b, int p, int limit) {
        check(p, 2, limit);
        return (short) ((b[p] & 0xff) << 8 | (b[p + 1] & 0xff));
    }

    public static int readInt(byte[] b, int p, int limit) {
        check(p, 4, limit);
        return (b[p] & 0xff) << 24 | (b[p + 1] & 0xff) << 16 | (b[p + 2] & 0xff) << 8 | (b[p + 3] & 0xff);
    }

    public static long readLong(byte[] b, int p, int limit) {
        check(p, 8, limit);
        return ((long) readInt(b, p, limit) << 32) | (readInt(b, p + 4, limit) & 0xffffffffL);
    }

    public static void checkCount(int n, int itemsStart, int limit, int itemSize, String what) {
        if (n < -1) {
            throw new MalformedDataException("negative length " + n + " of " + what + " at position " + (itemsStart - 4));
        }
        if (n > 0 && (long) n * itemSize > (long) limit - itemsStart) {
            throw new TruncatedDataException(what + " of " + n + " item(s) at position " + (itemsStart - 4)
                    + " does not fit in the " + Math.max(0, limit - itemsStart) + " remaining byte(s)");
        }
    }

    static String readUtf8(byte[] b, int p, int len, int limit) {
        check(p, len, limit);
        return new String(b, p, len, StandardCharsets.UTF_8);
    }

    /** A big-endian int at b[p]. */
    public static int readIntBE(byte[] b, int p) {
        return (b[p] & 0xff) << 24 | (b[p + 1] & 0xff) << 16 | (b[p + 2] & 0xff) << 8 | (b[p + 3] & 0xff);
    }

    /** Writes v big-endian at b[p]. */
    public static void writeIntBE(byte[] b, int p, int v) {
        b[p] = (byte) (v >>> 24);
        b[p + 1] = (byte) (v >>> 16);
        b[p + 2] = (byte) (v >>> 8);
        b[p + 3] = (byte) v;
    }
}
