package io.atoll.client.serialization.internal.compact;

import io.atoll.client.serialization.FieldKind;

import java.nio.charset.StandardCharsets;

/** 64-bit Rabin fingerprint that names compact schemas. Ints are consumed little-endian. */
public final class RabinFingerprint {
    static final long INIT = 0xc15d213aa4d7a795L;
    private static final long[] TABLE = new long[256];

    static {
        for (int i = 0; i < 256; i++) {
            long fp = i;
            for (int j = 0; j < 8; j++) {
                fp = (fp >>> 1) ^ (INIT & -(fp & 1L));
            }
            TABLE[i] = fp;
        }
    }

    private RabinFingerprint() {
    }

    static long ofByte(long fp, int b) {
        return (fp >>> 8) ^ TABLE[(int) (fp ^ b) & 0xff];
    }

    static long ofInt(long fp, int v) {
        fp = ofByte(fp, v & 0xff);
        fp = ofByte(fp, (v >>> 8) & 0xff);
        fp = ofByte(fp, (v >>> 16) & 0xff);
        return ofByte(fp, (v >>> 24) & 0xff);
    }

    static long ofString(long fp, String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        fp = ofInt(fp, utf8.length);
        for (byte b : utf8) {
            fp = ofByte(fp, b & 0xff);
        }
        return fp;
    }

    /** Schema id of a type name and its fields (already sorted by name). */
    public static long schemaId(String typeName, String[] names, FieldKind[] kinds) {
        long fp = ofString(INIT, typeName);
        fp = ofInt(fp, names.length);
        for (int i = 0; i < names.length; i++) {
            fp = ofString(fp, names[i]);
            fp = ofInt(fp, kinds[i].getId());
        }
        return fp;
    }
}
