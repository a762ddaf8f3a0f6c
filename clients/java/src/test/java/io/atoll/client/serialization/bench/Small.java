package io.atoll.client.serialization.bench;

/** The benchmark's SMALL value as a plain class (compact, explicit serializer, type name "small"). */
public class Small {
    public int intField;
    public long longField;
    public double doubleField;
    public String stringField;
}
