package io.atoll.client.serialization;

import io.atoll.client.serialization.internal.core.Bytes;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A serialized value: a 4-byte partition hash word, a 4-byte serializer type id
 * (both always big-endian) and the serializer's payload. Keys compare by bytes.
 * Instances are immutable; {@link #toByteArray()} returns a copy.
 */
public final class Data {
    /** Size of the partition hash word plus the type id. */
    public static final int HEADER_SIZE = 8;
    static final int TYPE_OFFSET = 4;

    private final byte[] bytes;
    private int cachedHash;
    private boolean hashComputed;

    /** Wraps without copying; callers inside the package hand over ownership. */
    Data(byte[] bytes) {
        if (bytes.length < HEADER_SIZE) {
            throw new TruncatedDataException("serialized data must have at least " + HEADER_SIZE
                    + " bytes (partition hash and type id), got " + bytes.length);
        }
        this.bytes = bytes;
    }

    /**
     * A Data holding a copy of {@code bytes} (as produced by {@link #toByteArray()}).
     *
     * @throws TruncatedDataException if fewer than 8 bytes are given
     */
    public static Data fromByteArray(byte[] bytes) {
        return new Data(bytes.clone());
    }

    /**
     * A Data holding a copy of the buffer's remaining bytes (the buffer's position is not moved).
     *
     * @throws TruncatedDataException if fewer than 8 bytes remain
     */
    public static Data fromByteBuffer(ByteBuffer buffer) {
        byte[] b = new byte[buffer.remaining()];
        buffer.duplicate().get(b);
        return new Data(b);
    }

    /** A read-only view of all bytes, header included, without copying (for transports). */
    public ByteBuffer asReadOnlyByteBuffer() {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }

    /** A Data from its parts. */
    public static Data of(int partitionHash, int typeId, byte[] payload) {
        byte[] b = new byte[HEADER_SIZE + payload.length];
        Bytes.writeIntBE(b, 0, partitionHash);
        Bytes.writeIntBE(b, TYPE_OFFSET, typeId);
        System.arraycopy(payload, 0, b, HEADER_SIZE, payload.length);
        return new Data(b);
    }

    /** Serializer type id (see {@link SerializationConstants}). */
    public int getType() {
        return Bytes.readIntBE(bytes, TYPE_OFFSET);
    }

    /** The partition hash word as stored: 0 unless a partition key was used. */
    public int getHeaderPartitionHash() {
        return Bytes.readIntBE(bytes, 0);
    }

    /** Whether the header carries a partition hash of its own. */
    public boolean hasPartitionHash() {
        return getHeaderPartitionHash() != 0;
    }

    /**
     * The hash used for partitioning: the header word when it is not 0, otherwise
     * MurmurHash3 (seed 0x01000193) of the payload only.
     */
    public int getPartitionHash() {
        if (!hashComputed) {
            int h = getHeaderPartitionHash();
            if (h == 0) {
                h = MurmurHash3.hash32(bytes, HEADER_SIZE, bytes.length - HEADER_SIZE);
            }
            cachedHash = h;
            hashComputed = true;
        }
        return cachedHash;
    }

    /** Partition id of this key for {@code partitionCount} partitions. */
    public int getPartitionId(int partitionCount) {
        return Partitioning.partitionId(getPartitionHash(), partitionCount);
    }

    /** All bytes: header and payload (a copy). */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /** A copy of the payload (everything after the 8-byte header). */
    public byte[] payload() {
        return Arrays.copyOfRange(bytes, HEADER_SIZE, bytes.length);
    }

    /** Number of bytes including the header. */
    public int totalSize() {
        return bytes.length;
    }

    /** Number of payload bytes. */
    public int dataSize() {
        return bytes.length - HEADER_SIZE;
    }

    public boolean isPortable() {
        return getType() == SerializationConstants.CONSTANT_TYPE_PORTABLE;
    }

    public boolean isCompact() {
        int t = getType();
        return t == SerializationConstants.CONSTANT_TYPE_COMPACT || t == SerializationConstants.CONSTANT_TYPE_COMPACT_WITH_SCHEMA;
    }

    public boolean isJson() {
        return getType() == SerializationConstants.JAVASCRIPT_JSON_SERIALIZATION_TYPE;
    }

    /** The backing array; never exposed outside the package. */
    byte[] bytes() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Data && Arrays.equals(bytes, ((Data) o).bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Data{type=").append(getType()).append(", size=").append(bytes.length).append(", hex=");
        int n = Math.min(bytes.length, 64);
        for (int i = 0; i < n; i++) {
            sb.append(Character.forDigit((bytes[i] >> 4) & 0xf, 16)).append(Character.forDigit(bytes[i] & 0xf, 16));
        }
        if (n < bytes.length) {
            sb.append("...");
        }
        return sb.append('}').toString();
    }
}
