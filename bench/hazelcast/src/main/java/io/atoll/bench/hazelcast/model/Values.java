package io.atoll.bench.hazelcast.model;

import java.util.Random;

/**
 * The workloads' data, drawn from {@link Random} so that atoll-bench (internal/jrand, internal/benchmodel)
 * draws the same values bit for bit. See bench/WORKLOADS.md.
 */
public final class Values {
    /** The characters of generated strings. */
    public static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    /** Length of every generated string. */
    public static final int STRING_LENGTH = 10;
    /** Length of every array of a LARGE object. */
    public static final int ARRAY_LENGTH = 3;
    /** The value stored under key k is drawn from {@code new Random(KEY_SEED_BASE + k)}. */
    public static final long KEY_SEED_BASE = 1_000_000L;
    /** The one value every write stores is drawn from {@code new Random(FIXED_SEED)}. */
    public static final long FIXED_SEED = 7L;
    /** Every MATCH_EVERY-th key holds {@link #MATCH} in its top-level string field. */
    public static final int MATCH_EVERY = 1000;
    public static final String MATCH = "metin";
    /** Length of workload A's payload array. */
    public static final int PAYLOAD_LENGTH = 20;

    private Values() {
    }

    public static String string(Random r) {
        char[] c = new char[STRING_LENGTH];
        for (int i = 0; i < c.length; i++) {
            c[i] = ALPHABET.charAt(r.nextInt(ALPHABET.length()));
        }
        return new String(c);
    }

    public static Small small(Random r) {
        Small s = new Small();
        s.intField = r.nextInt();
        s.longField = r.nextLong();
        s.doubleField = r.nextDouble();
        s.stringField = string(r);
        return s;
    }

    /** A LARGE object: each field, then its array, in field order. */
    public static Large large(Random r) {
        Large l = new Large();
        l.booleanField = r.nextBoolean();
        l.booleanArray = new boolean[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.booleanArray[i] = r.nextBoolean();
        }
        l.byteField = (byte) r.nextInt();
        l.byteArray = new byte[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.byteArray[i] = (byte) r.nextInt();
        }
        l.shortField = (short) r.nextInt();
        l.shortArray = new short[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.shortArray[i] = (short) r.nextInt();
        }
        l.intField = r.nextInt();
        l.intArray = new int[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.intArray[i] = r.nextInt();
        }
        l.longField = r.nextLong();
        l.longArray = new long[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.longArray[i] = r.nextLong();
        }
        l.floatField = r.nextFloat();
        l.floatArray = new float[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.floatArray[i] = r.nextFloat();
        }
        l.doubleField = r.nextDouble();
        l.doubleArray = new double[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.doubleArray[i] = r.nextDouble();
        }
        l.stringField = string(r);
        l.stringArray = new String[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.stringArray[i] = string(r);
        }
        l.small = small(r);
        l.smallArray = new Small[ARRAY_LENGTH];
        for (int i = 0; i < ARRAY_LENGTH; i++) {
            l.smallArray[i] = small(r);
        }
        return l;
    }

    /** The SMALL value a read/query map holds under key k. */
    public static Small smallForKey(int k) {
        Small s = small(new Random(KEY_SEED_BASE + k));
        if (k % MATCH_EVERY == 0) {
            s.stringField = MATCH;
        }
        return s;
    }

    /** The LARGE value a read/query map holds under key k. */
    public static Large largeForKey(int k) {
        Large l = large(new Random(KEY_SEED_BASE + k));
        if (k % MATCH_EVERY == 0) {
            l.stringField = MATCH;
        }
        return l;
    }

    /** The byte-array value a read map holds under key k. */
    public static byte[] bytesForKey(int k, int length) {
        byte[] b = new byte[length];
        new Random(KEY_SEED_BASE + k).nextBytes(b);
        return b;
    }

    /** Workload A's payload for key k: payload[i] = k*31 + i, in int arithmetic. */
    public static int[] payload(int k) {
        int[] p = new int[PAYLOAD_LENGTH];
        for (int i = 0; i < p.length; i++) {
            p[i] = k * 31 + i;
        }
        return p;
    }

    /** Workload A's JSON document for key k, without spaces. */
    public static String json(int k) {
        StringBuilder sb = new StringBuilder(160).append("{\"value\":").append(k).append(",\"payload\":[");
        int[] p = payload(k);
        for (int i = 0; i < p.length; i++) {
            sb.append(i == 0 ? "" : ",").append(p[i]);
        }
        return sb.append("]}").toString();
    }
}
