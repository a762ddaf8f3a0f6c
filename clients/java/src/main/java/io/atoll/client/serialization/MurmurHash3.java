package io.atoll.client.serialization;

/**
 * MurmurHash3 x86 32-bit, as used for partitioning: 4-byte blocks are read
 * little-endian, and {@link #DEFAULT_SEED} is the seed the data grid uses.
 */
public final class MurmurHash3 {
    /** Seed of the partition hash. */
    public static final int DEFAULT_SEED = 0x01000193;

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private MurmurHash3() {
    }

    /** Hash of {@code data[offset, offset+length)} with {@link #DEFAULT_SEED}. */
    public static int hash32(byte[] data, int offset, int length) {
        return hash32(data, offset, length, DEFAULT_SEED);
    }

    /** Hash of {@code data[offset, offset+length)} with the given seed. */
    public static int hash32(byte[] data, int offset, int length, int seed) {
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new IllegalArgumentException("range out of bounds");
        }
        int h = seed;
        int blocksEnd = offset + (length & ~3);
        for (int i = offset; i < blocksEnd; i += 4) {
            int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16 | (data[i + 3] & 0xff) << 24;
            h ^= mixK(k);
            h = Integer.rotateLeft(h, 13);
            h = h * 5 + 0xe6546b64;
        }
        int tail = length & 3;
        if (tail != 0) {
            int k = 0;
            if (tail == 3) {
                k ^= (data[blocksEnd + 2] & 0xff) << 16;
            }
            if (tail >= 2) {
                k ^= (data[blocksEnd + 1] & 0xff) << 8;
            }
            k ^= data[blocksEnd] & 0xff;
            h ^= mixK(k);
        }
        h ^= length;
        return fmix32(h);
    }

    private static int mixK(int k) {
        k *= C1;
        k = Integer.rotateLeft(k, 15);
        return k * C2;
    }

    private static int fmix32(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
