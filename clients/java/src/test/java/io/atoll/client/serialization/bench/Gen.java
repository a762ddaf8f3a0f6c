package io.atoll.client.serialization.bench;

import java.util.Random;

/** The benchmark's deterministic value generator (java.util.Random seeded per key). */
public final class Gen {
    public static final String ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    public static final int STR_LEN = 10;
    public static final int ARR_LEN = 3;
    public static final long VALUE_SEED_BASE = 1_000_000L;
    public static final int METIN_EVERY = 1000;
    public static final String METIN = "metin";

    private Gen() {
    }

    static String str(Random r, int len) {
        char[] c = new char[len];
        for (int i = 0; i < len; i++) {
            c[i] = ALPHA.charAt(r.nextInt(ALPHA.length()));
        }
        return new String(c);
    }

    static Small small(Random r) {
        Small s = new Small();
        s.intField = r.nextInt();
        s.longField = r.nextLong();
        s.doubleField = r.nextDouble();
        s.stringField = str(r, STR_LEN);
        return s;
    }

    static Large large(Random r) {
        int n = ARR_LEN;
        Large l = new Large();
        l.booleanField = r.nextBoolean();
        l.booleanArray = new boolean[n];
        for (int i = 0; i < n; i++) {
            l.booleanArray[i] = r.nextBoolean();
        }
        l.byteField = (byte) r.nextInt();
        l.byteArray = new byte[n];
        for (int i = 0; i < n; i++) {
            l.byteArray[i] = (byte) r.nextInt();
        }
        l.shortField = (short) r.nextInt();
        l.shortArray = new short[n];
        for (int i = 0; i < n; i++) {
            l.shortArray[i] = (short) r.nextInt();
        }
        l.intField = r.nextInt();
        l.intArray = new int[n];
        for (int i = 0; i < n; i++) {
            l.intArray[i] = r.nextInt();
        }
        l.longField = r.nextLong();
        l.longArray = new long[n];
        for (int i = 0; i < n; i++) {
            l.longArray[i] = r.nextLong();
        }
        l.floatField = r.nextFloat();
        l.floatArray = new float[n];
        for (int i = 0; i < n; i++) {
            l.floatArray[i] = r.nextFloat();
        }
        l.doubleField = r.nextDouble();
        l.doubleArray = new double[n];
        for (int i = 0; i < n; i++) {
            l.doubleArray[i] = r.nextDouble();
        }
        l.stringField = str(r, STR_LEN);
        l.stringArray = new String[n];
        for (int i = 0; i < n; i++) {
            l.stringArray[i] = str(r, STR_LEN);
        }
        l.small = small(r);
        l.smallArray = new Small[n];
        for (int i = 0; i < n; i++) {
            l.smallArray[i] = small(r);
        }
        return l;
    }

    public static Small smallForKey(int k) {
        Small s = small(new Random(VALUE_SEED_BASE + k));
        if (k % METIN_EVERY == 0) {
            s.stringField = METIN;
        }
        return s;
    }

    public static Large largeForKey(int k) {
        Large l = large(new Random(VALUE_SEED_BASE + k));
        if (k % METIN_EVERY == 0) {
            l.stringField = METIN;
        }
        return l;
    }

    public static int[] aPayload(int k) {
        int[] p = new int[20];
        for (int i = 0; i < 20; i++) {
            p[i] = k * 31 + i;
        }
        return p;
    }

    /** The workload A JSON document of key k: {"value":k,"payload":[p0,...,p19]}, no spaces. */
    public static String aJson(int k) {
        StringBuilder sb = new StringBuilder(200);
        sb.append("{\"value\":").append(k).append(",\"payload\":[");
        int[] p = aPayload(k);
        for (int i = 0; i < p.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(p[i]);
        }
        return sb.append("]}").toString();
    }
}
