package io.atoll.client.serialization;

/**
 * One field of a compact {@link Schema} with its computed place in the binary:
 * a byte offset in the fixed-size section (and a bit for booleans), or an index
 * in the offset table for variable-size fields.
 */
public final class FieldDescriptor {
    private final String name;
    private final FieldKind kind;
    private final int offset;
    private final int bitOffset;
    private final int index;

    FieldDescriptor(String name, FieldKind kind, int offset, int bitOffset, int index) {
        this.name = name;
        this.kind = kind;
        this.offset = offset;
        this.bitOffset = bitOffset;
        this.index = index;
    }

    public String getName() {
        return name;
    }

    public FieldKind getKind() {
        return kind;
    }

    /** Byte offset in the fixed-size section, -1 for variable-size fields. */
    public int getOffset() {
        return offset;
    }

    /** Bit (0 = least significant) of a BOOLEAN field, -1 otherwise. */
    public int getBitOffset() {
        return bitOffset;
    }

    /** Slot in the offset table of a variable-size field, -1 for fixed-size fields. */
    public int getIndex() {
        return index;
    }

    /** Whether the field lives in the fixed-size section. */
    public boolean isFixedSize() {
        return index < 0;
    }

    @Override
    public String toString() {
        return name + ":" + kind + (index >= 0 ? "@index" + index : "@" + offset + (bitOffset >= 0 ? "." + bitOffset : ""));
    }
}
