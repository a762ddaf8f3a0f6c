package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.InvalidStringException;
import io.atoll.client.serialization.ObjectDataOutput;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Arrays;

/** Growable big-endian output; positions are absolute in the Data being built. */
public final class BufferOutput implements ObjectDataOutput {
    private final Context service;
    private byte[] buf;
    private int pos;
    public int depth;
    /** Whether compact values embed their schemas (type -56). */
    public boolean includeSchema;

    public BufferOutput(Context service, int initialSize) {
        this.service = service;
        this.buf = new byte[Math.max(16, initialSize)];
    }

    private void ensure(int more) {
        int need = pos + more;
        if (need < 0) {
            throw new AtollSerializationException("serialized value exceeds 2 GiB");
        }
        if (need > buf.length) {
            int cap = Math.max(need, buf.length < (1 << 29) ? buf.length * 2 : Integer.MAX_VALUE - 8);
            buf = Arrays.copyOf(buf, cap);
        }
    }

    Context service() {
        return service;
    }

    @Override
    public int position() {
        return pos;
    }

    @Override
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }

    @Override
    public void write(int b) {
        ensure(1);
        buf[pos++] = (byte) b;
    }

    @Override
    public void write(byte[] bytes) {
        write(bytes, 0, bytes.length);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        ensure(length);
        System.arraycopy(bytes, offset, buf, pos, length);
        pos += length;
    }

    public void writeZeroBytes(int n) {
        ensure(n);
        Arrays.fill(buf, pos, pos + n, (byte) 0);
        pos += n;
    }

    @Override
    public void writeBoolean(boolean v) {
        write(v ? 1 : 0);
    }

    @Override
    public void writeByte(int v) {
        write(v);
    }

    @Override
    public void writeChar(int v) {
        writeShort(v);
    }

    @Override
    public void writeShort(int v) {
        ensure(2);
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
    }

    @Override
    public void writeInt(int v) {
        ensure(4);
        Bytes.writeIntBE(buf, pos, v);
        pos += 4;
    }

    @Override
    public void writeLong(long v) {
        writeInt((int) (v >>> 32));
        writeInt((int) v);
    }

    @Override
    public void writeFloat(float v) {
        writeInt(Float.floatToIntBits(v));
    }

    @Override
    public void writeDouble(double v) {
        writeLong(Double.doubleToLongBits(v));
    }

    @Override
    public void writeString(String s) {
        if (s == null) {
            writeInt(-1);
            return;
        }
        int bad = unpairedSurrogate(s);
        if (bad >= 0) {
            throw new InvalidStringException(s, bad);
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        writeInt(utf8.length);
        write(utf8);
    }

    /** The index of the first unpaired surrogate of s, or -1: UTF-8 cannot carry one. */
    static int unpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isSurrogate(c)) {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
                continue;
            }
            return i;
        }
        return -1;
    }

    /** Portable field names: short length + low 8 bits of each char. */
    public void writeAsciiName(String name) {
        writeShort(name.length());
        ensure(name.length());
        for (int i = 0; i < name.length(); i++) {
            buf[pos++] = (byte) name.charAt(i);
        }
    }

    public void writeByteAt(int p, int v) {
        buf[p] = (byte) v;
    }

    public byte byteAt(int p) {
        return buf[p];
    }

    public void writeShortAt(int p, int v) {
        buf[p] = (byte) (v >>> 8);
        buf[p + 1] = (byte) v;
    }

    public void writeIntAt(int p, int v) {
        Bytes.writeIntBE(buf, p, v);
    }

    public void writeLongAt(int p, long v) {
        Bytes.writeIntBE(buf, p, (int) (v >>> 32));
        Bytes.writeIntBE(buf, p + 4, (int) v);
    }

    @Override
    public void writeByteArray(byte[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        write(v);
    }

    @Override
    public void writeBooleanArray(boolean[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        for (boolean b : v) {
            writeBoolean(b);
        }
    }

    @Override
    public void writeCharArray(char[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        for (char c : v) {
            writeChar(c);
        }
    }

    @Override
    public void writeShortArray(short[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        for (short s : v) {
            writeShort(s);
        }
    }

    @Override
    public void writeIntArray(int[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        for (int i : v) {
            writeInt(i);
        }
    }

    @Override
    public void writeLongArray(long[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        for (long l : v) {
            writeLong(l);
        }
    }

    @Override
    public void writeFloatArray(float[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        for (float f : v) {
            writeFloat(f);
        }
    }

    @Override
    public void writeDoubleArray(double[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        for (double d : v) {
            writeDouble(d);
        }
    }

    @Override
    public void writeStringArray(String[] v) {
        if (v == null) {
            writeInt(-1);
            return;
        }
        writeInt(v.length);
        for (String s : v) {
            writeString(s);
        }
    }

    @Override
    public void writeObject(Object object) {
        service.writeObject(this, object);
    }

    // ---- values shared by compact and portable ----

    public void writeDecimal(BigDecimal v) {
        byte[] unscaled = v.unscaledValue().toByteArray();
        writeInt(unscaled.length);
        write(unscaled);
        writeInt(v.scale());
    }

    public void writeTime(LocalTime v) {
        writeByte(v.getHour());
        writeByte(v.getMinute());
        writeByte(v.getSecond());
        writeInt(v.getNano());
    }

    /** Compact DATE: int year. */
    public void writeDate(LocalDate v) {
        writeInt(v.getYear());
        writeByte(v.getMonthValue());
        writeByte(v.getDayOfMonth());
    }

    /** Portable DATE: short year. */
    public void writePortableDate(LocalDate v) {
        int year = v.getYear();
        if (year < Short.MIN_VALUE || year > Short.MAX_VALUE) {
            throw new AtollSerializationException("portable DATE year must fit in 16 bits: " + year);
        }
        writeShort(year);
        writeByte(v.getMonthValue());
        writeByte(v.getDayOfMonth());
    }

    public void writeTimestamp(LocalDateTime v, boolean portable) {
        if (portable) {
            writePortableDate(v.toLocalDate());
        } else {
            writeDate(v.toLocalDate());
        }
        writeTime(v.toLocalTime());
    }

    public void writeTimestampWithTimezone(OffsetDateTime v, boolean portable) {
        writeTimestamp(v.toLocalDateTime(), portable);
        writeInt(v.getOffset().getTotalSeconds());
    }
}
