package io.atoll.client.serialization;

/** A {@link Portable} whose class version is its own rather than the configured portable version. */
public interface VersionedPortable extends Portable {
    int getClassVersion();
}
