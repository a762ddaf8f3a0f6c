package io.atoll.bench.hazelcast.model;

/** The SMALL object of workload B: four fields, in the order every format writes them. */
public final class Small {
    public int intField;
    public long longField;
    public double doubleField;
    public String stringField;
}
