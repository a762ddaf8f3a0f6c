package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.MalformedDataException;
import io.atoll.client.serialization.ObjectDataInput;
import io.atoll.client.serialization.TruncatedDataException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Bounds-checked big-endian input over a region {@code [pos, limit)} of a byte array.
 * Positions are absolute in the array (the whole Data, header included).
 */
public final class BufferInput implements ObjectDataInput {
    public final Context service;
    public final byte[] buf;
    public int pos;
    public final int limit;
    public int depth;
    /** Whether nested compact/portable/identified values decode to generic records. */
    public boolean generic;

    public BufferInput(Context service, byte[] buf, int pos, int limit, int depth) {
        if (limit > buf.length || pos < 0 || pos > limit) {
            throw new TruncatedDataException("region [" + pos + ", " + limit + ") is outside the " + buf.length + "-byte buffer");
        }
        this.service = service;
        this.buf = buf;
        this.pos = pos;
        this.limit = limit;
        this.depth = depth;
    }

    @Override
    public int position() {
        return pos;
    }

    public void position(int p) {
        if (p < 0 || p > limit) {
            throw new TruncatedDataException("position " + p + " is outside the region ending at " + limit);
        }
        pos = p;
    }

    @Override
    public int available() {
        return limit - pos;
    }

    private int take(int n) {
        Bytes.check(pos, n, limit);
        int p = pos;
        pos += n;
        return p;
    }

    @Override
    public boolean readBoolean() {
        return buf[take(1)] != 0;
    }

    @Override
    public byte readByte() {
        return buf[take(1)];
    }

    @Override
    public int readUnsignedByte() {
        return buf[take(1)] & 0xff;
    }

    @Override
    public char readChar() {
        return (char) readShort();
    }

    @Override
    public short readShort() {
        int p = take(2);
        return (short) ((buf[p] & 0xff) << 8 | (buf[p + 1] & 0xff));
    }

    @Override
    public int readUnsignedShort() {
        return readShort() & 0xffff;
    }

    @Override
    public int readInt() {
        int p = take(4);
        return Bytes.readIntBE(buf, p);
    }

    @Override
    public long readLong() {
        int p = take(8);
        return ((long) Bytes.readIntBE(buf, p) << 32) | (Bytes.readIntBE(buf, p + 4) & 0xffffffffL);
    }

    @Override
    public float readFloat() {
        return Float.intBitsToFloat(readInt());
    }

    @Override
    public double readDouble() {
        return Double.longBitsToDouble(readLong());
    }

    @Override
    public String readString() {
        int n = readInt();
        if (n == -1) {
            return null;
        }
        if (n < -1) {
            throw new MalformedDataException("negative string length " + n + " at position " + (pos - 4));
        }
        int p = take(n);
        return Bytes.readUtf8(buf, p, n, limit);
    }

    /** Reads an array length (-1 = null) and checks that {@code n * itemSize} bytes remain. */
    public int readLength(int itemSize, String what) {
        int n = readInt();
        Bytes.checkCount(n, pos, limit, itemSize, what);
        return n;
    }

    @Override
    public byte[] readByteArray() {
        int n = readLength(1, "byte array");
        if (n < 0) {
            return null;
        }
        byte[] a = new byte[n];
        System.arraycopy(buf, take(n), a, 0, n);
        return a;
    }

    @Override
    public boolean[] readBooleanArray() {
        int n = readLength(1, "boolean array");
        if (n < 0) {
            return null;
        }
        boolean[] a = new boolean[n];
        for (int i = 0; i < n; i++) {
            a[i] = readBoolean();
        }
        return a;
    }

    @Override
    public char[] readCharArray() {
        int n = readLength(2, "char array");
        if (n < 0) {
            return null;
        }
        char[] a = new char[n];
        for (int i = 0; i < n; i++) {
            a[i] = readChar();
        }
        return a;
    }

    @Override
    public short[] readShortArray() {
        int n = readLength(2, "short array");
        if (n < 0) {
            return null;
        }
        short[] a = new short[n];
        for (int i = 0; i < n; i++) {
            a[i] = readShort();
        }
        return a;
    }

    @Override
    public int[] readIntArray() {
        int n = readLength(4, "int array");
        if (n < 0) {
            return null;
        }
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = readInt();
        }
        return a;
    }

    @Override
    public long[] readLongArray() {
        int n = readLength(8, "long array");
        if (n < 0) {
            return null;
        }
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = readLong();
        }
        return a;
    }

    @Override
    public float[] readFloatArray() {
        int n = readLength(4, "float array");
        if (n < 0) {
            return null;
        }
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = readFloat();
        }
        return a;
    }

    @Override
    public double[] readDoubleArray() {
        int n = readLength(8, "double array");
        if (n < 0) {
            return null;
        }
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = readDouble();
        }
        return a;
    }

    @Override
    public String[] readStringArray() {
        int n = readLength(4, "string array");
        if (n < 0) {
            return null;
        }
        String[] a = new String[n];
        for (int i = 0; i < n; i++) {
            a[i] = readString();
        }
        return a;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T readObject() {
        return (T) service.readObject(this);
    }

    @Override
    public <T> T readObject(Class<T> type) {
        Object o = service.readObject(this);
        if (o != null && !type.isInstance(o)) {
            throw new AtollSerializationException("expected a nested " + type.getName() + " but read a " + o.getClass().getName());
        }
        return type.cast(o);
    }

    @Override
    public void readFully(byte[] bytes) {
        readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(byte[] bytes, int offset, int length) {
        System.arraycopy(buf, take(length), bytes, offset, length);
    }

    @Override
    public int skipBytes(int n) {
        int k = Math.max(0, Math.min(n, limit - pos));
        pos += k;
        return k;
    }

    // ---- values shared by compact and portable ----

    public BigDecimal readDecimal() {
        int n = readLength(1, "decimal");
        if (n <= 0) {
            throw new MalformedDataException("decimal with " + n + " unscaled byte(s) at position " + (pos - 4));
        }
        byte[] unscaled = new byte[n];
        readFully(unscaled);
        int scale = readInt();
        return new BigDecimal(new BigInteger(unscaled), scale);
    }

    public LocalTime readTime() {
        int p = pos;
        int hour = readByte();
        int minute = readByte();
        int second = readByte();
        int nano = readInt();
        try {
            return LocalTime.of(hour, minute, second, nano);
        } catch (DateTimeException e) {
            throw new MalformedDataException("invalid time at position " + p + ": " + e.getMessage(), e);
        }
    }

    /** Compact DATE (int year) or portable DATE (short year). */
    public LocalDate readDate(boolean portable) {
        int p = pos;
        int year = portable ? readShort() : readInt();
        int month = readByte();
        int day = readByte();
        try {
            return LocalDate.of(year, month, day);
        } catch (DateTimeException e) {
            throw new MalformedDataException("invalid date at position " + p + ": " + e.getMessage(), e);
        }
    }

    public LocalDateTime readTimestamp(boolean portable) {
        LocalDate d = readDate(portable);
        return LocalDateTime.of(d, readTime());
    }

    public OffsetDateTime readTimestampWithTimezone(boolean portable) {
        LocalDateTime dt = readTimestamp(portable);
        int p = pos;
        int offsetSeconds = readInt();
        try {
            return OffsetDateTime.of(dt, ZoneOffset.ofTotalSeconds(offsetSeconds));
        } catch (DateTimeException e) {
            throw new MalformedDataException("invalid zone offset at position " + p + ": " + e.getMessage(), e);
        }
    }
}
