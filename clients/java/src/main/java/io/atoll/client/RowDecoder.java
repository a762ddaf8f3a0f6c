package io.atoll.client;

import io.atoll.client.proto.SqlType;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.JsonValue;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Reads rows of a {@code RowBatch} (internal/exec/rows.go): per value a tag byte and its
 * payload — 0 NULL; 1 FALSE, 2 TRUE; 3 integer: type byte, zigzag varint; 4 floating: type
 * byte, 8 bytes little-endian; 5 string: type byte, uvarint length, UTF-8; 6 object: uvarint
 * length, serialized Data. Values come back as the Java types of {@code SqlColumnType}, except
 * objects, which stay {@link Data} until someone asks for them. Corrupt bytes are an
 * {@link InternalException}, never an unchecked surprise.
 */
final class RowDecoder {
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private final ByteBuffer buf;
    private final String member;

    RowDecoder(ByteBuffer buf, String member) {
        this.buf = buf.slice().order(ByteOrder.LITTLE_ENDIAN);
        this.member = member;
    }

    /** Decodes one row of {@code width} values. */
    Object[] row(int width) {
        Object[] out = new Object[width];
        for (int i = 0; i < width; i++) {
            out[i] = value();
        }
        return out;
    }

    /** Whether bytes remain. */
    boolean hasRemaining() {
        return buf.hasRemaining();
    }

    private InternalException corrupt(String what) {
        return new InternalException("corrupt result page: " + what, member, -1, false, null);
    }

    private int u8() {
        if (!buf.hasRemaining()) {
            throw corrupt("truncated value");
        }
        return buf.get() & 0xff;
    }

    private long uvarint() {
        long x = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = u8();
            if (shift == 63 && b > 1) {
                throw corrupt("varint overflows 64 bits");
            }
            x |= (long) (b & 0x7f) << shift;
            if (b < 0x80) {
                return x;
            }
        }
        throw corrupt("varint overflows 64 bits");
    }

    private long varint() {
        long u = uvarint();
        return (u >>> 1) ^ -(u & 1);
    }

    private int length() {
        long l = uvarint();
        if (l < 0 || l > buf.remaining()) {
            throw corrupt("length " + l + " exceeds the " + buf.remaining() + " bytes left");
        }
        return (int) l;
    }

    Object value() {
        int tag = u8();
        switch (tag) {
            case 0:
                return null;
            case 1:
                return Boolean.FALSE;
            case 2:
                return Boolean.TRUE;
            case 3: {
                int t = u8();
                long i = varint();
                return integer(t, i);
            }
            case 4: {
                int t = u8();
                if (buf.remaining() < 8) {
                    throw corrupt("truncated floating-point value");
                }
                double d = buf.getDouble();
                if (t == SqlType.SQL_TYPE_REAL_VALUE) {
                    return (float) d;
                } else if (t == SqlType.SQL_TYPE_DECIMAL_VALUE) {
                    if (Double.isNaN(d) || Double.isInfinite(d)) {
                        throw corrupt("DECIMAL value " + d);
                    }
                    return BigDecimal.valueOf(d);
                } else if (t == SqlType.SQL_TYPE_DOUBLE_VALUE) {
                    return d;
                }
                throw corrupt("floating-point value of type " + t);
            }
            case 5: {
                int t = u8();
                int n = length();
                byte[] b = new byte[n];
                buf.get(b);
                String s = new String(b, StandardCharsets.UTF_8);
                if (t == SqlType.SQL_TYPE_JSON_VALUE) {
                    return new JsonValue(s);
                } else if (t == SqlType.SQL_TYPE_VARCHAR_VALUE) {
                    return s;
                }
                throw corrupt("string value of type " + t);
            }
            case 6: {
                int n = length();
                if (n < Data.HEADER_SIZE) {
                    throw corrupt("object of " + n + " bytes");
                }
                ByteBuffer slice = buf.slice();
                slice.limit(n);
                buf.position(buf.position() + n);
                return Data.fromByteBuffer(slice);
            }
            default:
                throw corrupt("tag " + tag);
        }
    }

    private Object integer(int t, long i) {
        switch (t) {
            case SqlType.SQL_TYPE_BOOLEAN_VALUE:
                return i != 0;
            case SqlType.SQL_TYPE_TINYINT_VALUE:
                return (byte) i;
            case SqlType.SQL_TYPE_SMALLINT_VALUE:
                return (short) i;
            case SqlType.SQL_TYPE_INTEGER_VALUE:
                return (int) i;
            case SqlType.SQL_TYPE_BIGINT_VALUE:
                return i;
            case SqlType.SQL_TYPE_DATE_VALUE:
                if (i < LocalDate.MIN.toEpochDay() || i > LocalDate.MAX.toEpochDay()) {
                    throw corrupt("DATE value " + i);
                }
                return LocalDate.ofEpochDay(i);
            case SqlType.SQL_TYPE_TIME_VALUE:
                if (i < 0 || i >= NANOS_PER_DAY) {
                    throw corrupt("TIME value " + i);
                }
                return LocalTime.ofNanoOfDay(i);
            case SqlType.SQL_TYPE_TIMESTAMP_VALUE:
                return LocalDateTime.ofInstant(instant(i), ZoneOffset.UTC);
            case SqlType.SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE_VALUE:
                return OffsetDateTime.ofInstant(instant(i), ZoneOffset.UTC);
            default:
                throw corrupt("integer value of type " + t);
        }
    }

    private static Instant instant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }
}
