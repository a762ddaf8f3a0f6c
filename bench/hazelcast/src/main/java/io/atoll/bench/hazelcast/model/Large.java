package io.atoll.bench.hazelcast.model;

/** The LARGE object of workload B: every primitive, its array, a string, a nested SMALL and an array of them. */
public final class Large {
    public boolean booleanField;
    public boolean[] booleanArray;
    public byte byteField;
    public byte[] byteArray;
    public short shortField;
    public short[] shortArray;
    public int intField;
    public int[] intArray;
    public long longField;
    public long[] longArray;
    public float floatField;
    public float[] floatArray;
    public double doubleField;
    public double[] doubleArray;
    public String stringField;
    public String[] stringArray;
    public Small small;
    public Small[] smallArray;
}
