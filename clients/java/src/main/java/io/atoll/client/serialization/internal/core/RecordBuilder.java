package io.atoll.client.serialization.internal.core;

import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.FieldDefinition;
import io.atoll.client.serialization.FieldDescriptor;
import io.atoll.client.serialization.FieldKind;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.GenericRecordBuilder;
import io.atoll.client.serialization.IdentifiedLayout;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.Schema;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** The one {@link GenericRecordBuilder} implementation for all three formats. */
public final class RecordBuilder implements GenericRecordBuilder {
    private final GenericRecord.Format format;
    private final String typeName;
    /** For compact builders bound to a schema (newBuilder / newBuilderWithClone), else null. */
    private final Schema boundSchema;
    private final ClassDefinition cd;
    private final IdentifiedLayout layout;
    private final boolean overwrite;
    private final LinkedHashMap<String, Object> values = new LinkedHashMap<>();
    private final Map<String, FieldKind> kinds = new HashMap<>();
    private boolean built;

    private RecordBuilder(GenericRecord.Format format, String typeName, Schema boundSchema, ClassDefinition cd,
                          IdentifiedLayout layout, boolean overwrite) {
        this.format = format;
        this.typeName = typeName;
        this.boundSchema = boundSchema;
        this.cd = cd;
        this.layout = layout;
        this.overwrite = overwrite;
    }

    public static RecordBuilder compact(String typeName) {
        return new RecordBuilder(GenericRecord.Format.COMPACT, Objects.requireNonNull(typeName, "typeName"), null, null, null, false);
    }

    public static RecordBuilder portable(ClassDefinition cd) {
        return new RecordBuilder(GenericRecord.Format.PORTABLE, null, null, Objects.requireNonNull(cd, "classDefinition"), null, false);
    }

    public static RecordBuilder identified(IdentifiedLayout layout) {
        return new RecordBuilder(GenericRecord.Format.IDENTIFIED, null, null, null, Objects.requireNonNull(layout, "layout"), false);
    }

    /** A builder for the same type as {@code r}; with {@code clone}, pre-filled and overwritable. */
    public static RecordBuilder like(GenericRecord r, boolean clone) {
        RecordBuilder b;
        switch (r.getFormat()) {
            case COMPACT:
                b = new RecordBuilder(GenericRecord.Format.COMPACT, r.getTypeName(), r.getSchema(), null, null, clone);
                break;
            case PORTABLE:
                b = new RecordBuilder(GenericRecord.Format.PORTABLE, null, null, r.getClassDefinition(), null, clone);
                break;
            default:
                b = new RecordBuilder(GenericRecord.Format.IDENTIFIED, null, null, null, r.getLayout(), clone);
                break;
        }
        if (clone) {
            Iterable<String> order = r instanceof BuiltRecord ? ((BuiltRecord) r).writeOrder() : r.getFieldNames();
            for (String f : order) {
                b.values.put(f, r.getValue(f));
                b.kinds.put(f, r.getFieldKind(f));
            }
        }
        return b;
    }

    /** The kind the format declares for a field, or null when the format does not restrict it. */
    private FieldKind declaredKind(String name) {
        switch (format) {
            case COMPACT:
                if (boundSchema == null) {
                    return null;
                }
                FieldDescriptor fd = boundSchema.getField(name);
                if (fd == null) {
                    throw new InvalidFieldException("compact type '" + typeName + "' has no field '" + name + "'");
                }
                return fd.getKind();
            case PORTABLE: {
                FieldDefinition f = cd.getField(name);
                if (f == null) {
                    throw new InvalidFieldException("portable class (" + cd.getFactoryId() + "," + cd.getClassId() + ") has no field '" + name + "'");
                }
                return f.getType().toFieldKind();
            }
            default: {
                IdentifiedLayout.Field f = layout.getField(name);
                if (f == null) {
                    throw new InvalidFieldException("identified layout (" + layout.getFactoryId() + "," + layout.getClassId()
                            + ") has no field '" + name + "'");
                }
                return f.getKind();
            }
        }
    }

    GenericRecordBuilder set(String name, FieldKind setterKind, Object value) {
        if (built) {
            throw new IllegalStateException("build() was already called");
        }
        Objects.requireNonNull(name, "fieldName");
        FieldKind declared = declaredKind(name);
        FieldKind kind = setterKind;
        if (format == GenericRecord.Format.PORTABLE && setterKind == FieldKind.COMPACT) {
            kind = FieldKind.PORTABLE;
        } else if (format == GenericRecord.Format.PORTABLE && setterKind == FieldKind.ARRAY_OF_COMPACT) {
            kind = FieldKind.ARRAY_OF_PORTABLE;
        }
        if (declared != null) {
            if (!Kinds.compatible(setterKind, declared)) {
                throw new InvalidFieldException("field '" + name + "' is " + declared + " and cannot be set as " + setterKind);
            }
            value = Kinds.convert(name, value, setterKind, declared);
            kind = declared;
        }
        if (format == GenericRecord.Format.COMPACT) {
            if (!kind.isCompactKind()) {
                throw new InvalidFieldException("compact records cannot hold " + kind + " field '" + name + "'");
            }
            checkRecords(name, value, GenericRecord.Format.COMPACT);
        } else if (format == GenericRecord.Format.PORTABLE) {
            checkRecords(name, value, GenericRecord.Format.PORTABLE);
            if (kind == FieldKind.ARRAY_OF_PORTABLE && value != null) {
                for (Object o : (Object[]) value) {
                    if (o == null) {
                        throw new InvalidFieldException("portable array field '" + name + "' cannot hold null items");
                    }
                }
            }
        }
        if (values.containsKey(name) && !overwrite) {
            throw new InvalidFieldException("field '" + name + "' is already set");
        }
        values.put(name, value);
        kinds.put(name, kind);
        return this;
    }

    private static void checkRecords(String name, Object value, GenericRecord.Format expected) {
        if (value instanceof GenericRecord) {
            if (((GenericRecord) value).getFormat() != expected) {
                throw new InvalidFieldException("field '" + name + "' needs a " + expected + " record, got " + ((GenericRecord) value).getFormat());
            }
        } else if (value instanceof GenericRecord[]) {
            for (GenericRecord r : (GenericRecord[]) value) {
                if (r != null && r.getFormat() != expected) {
                    throw new InvalidFieldException("field '" + name + "' needs " + expected + " records, got " + r.getFormat());
                }
            }
        }
    }

    @Override
    public GenericRecord build() {
        if (built) {
            throw new IllegalStateException("build() was already called");
        }
        built = true;
        switch (format) {
            case COMPACT: {
                Schema schema;
                if (boundSchema != null) {
                    for (FieldDescriptor f : boundSchema.getFields()) {
                        if (!values.containsKey(f.getName())) {
                            throw new InvalidFieldException("field '" + f.getName() + "' of compact type '" + typeName + "' is not set");
                        }
                    }
                    schema = boundSchema;
                } else {
                    schema = new Schema(typeName, kinds);
                }
                return new BuiltRecord(format, schema, null, null, values, kinds);
            }
            case PORTABLE: {
                LinkedHashMap<String, Object> ordered = new LinkedHashMap<>();
                for (FieldDefinition f : cd.getFields()) {
                    if (!values.containsKey(f.getName())) {
                        throw new InvalidFieldException("field '" + f.getName() + "' of portable class (" + cd.getFactoryId()
                                + "," + cd.getClassId() + ") is not set");
                    }
                    ordered.put(f.getName(), values.get(f.getName()));
                }
                return new BuiltRecord(format, null, cd, null, ordered, kinds);
            }
            default: {
                LinkedHashMap<String, Object> ordered = new LinkedHashMap<>();
                for (IdentifiedLayout.Field f : layout.getFields()) {
                    if (!values.containsKey(f.getName())) {
                        throw new InvalidFieldException("field '" + f.getName() + "' of identified layout (" + layout.getFactoryId()
                                + "," + layout.getClassId() + ") is not set");
                    }
                    ordered.put(f.getName(), values.get(f.getName()));
                }
                return new BuiltRecord(format, null, null, layout, ordered, kinds);
            }
        }
    }

    @Override
    public GenericRecordBuilder setBoolean(String fieldName, boolean value) {
        return set(fieldName, FieldKind.BOOLEAN, value);
    }

    @Override
    public GenericRecordBuilder setInt8(String fieldName, byte value) {
        return set(fieldName, FieldKind.INT8, value);
    }

    @Override
    public GenericRecordBuilder setChar(String fieldName, char value) {
        return set(fieldName, FieldKind.CHAR, value);
    }

    @Override
    public GenericRecordBuilder setInt16(String fieldName, short value) {
        return set(fieldName, FieldKind.INT16, value);
    }

    @Override
    public GenericRecordBuilder setInt32(String fieldName, int value) {
        return set(fieldName, FieldKind.INT32, value);
    }

    @Override
    public GenericRecordBuilder setInt64(String fieldName, long value) {
        return set(fieldName, FieldKind.INT64, value);
    }

    @Override
    public GenericRecordBuilder setFloat32(String fieldName, float value) {
        return set(fieldName, FieldKind.FLOAT32, value);
    }

    @Override
    public GenericRecordBuilder setFloat64(String fieldName, double value) {
        return set(fieldName, FieldKind.FLOAT64, value);
    }

    @Override
    public GenericRecordBuilder setString(String fieldName, String value) {
        return set(fieldName, FieldKind.STRING, value);
    }

    @Override
    public GenericRecordBuilder setDecimal(String fieldName, java.math.BigDecimal value) {
        return set(fieldName, FieldKind.DECIMAL, value);
    }

    @Override
    public GenericRecordBuilder setTime(String fieldName, java.time.LocalTime value) {
        return set(fieldName, FieldKind.TIME, value);
    }

    @Override
    public GenericRecordBuilder setDate(String fieldName, java.time.LocalDate value) {
        return set(fieldName, FieldKind.DATE, value);
    }

    @Override
    public GenericRecordBuilder setTimestamp(String fieldName, java.time.LocalDateTime value) {
        return set(fieldName, FieldKind.TIMESTAMP, value);
    }

    @Override
    public GenericRecordBuilder setTimestampWithTimezone(String fieldName, java.time.OffsetDateTime value) {
        return set(fieldName, FieldKind.TIMESTAMP_WITH_TIMEZONE, value);
    }

    @Override
    public GenericRecordBuilder setGenericRecord(String fieldName, GenericRecord value) {
        return set(fieldName, FieldKind.COMPACT, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfBoolean(String fieldName, boolean[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_BOOLEAN, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfInt8(String fieldName, byte[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_INT8, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfChar(String fieldName, char[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_CHAR, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfInt16(String fieldName, short[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_INT16, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfInt32(String fieldName, int[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_INT32, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfInt64(String fieldName, long[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_INT64, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfFloat32(String fieldName, float[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_FLOAT32, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfFloat64(String fieldName, double[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_FLOAT64, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfString(String fieldName, String[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_STRING, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfDecimal(String fieldName, java.math.BigDecimal[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_DECIMAL, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfTime(String fieldName, java.time.LocalTime[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_TIME, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfDate(String fieldName, java.time.LocalDate[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_DATE, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfTimestamp(String fieldName, java.time.LocalDateTime[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_TIMESTAMP, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfTimestampWithTimezone(String fieldName, java.time.OffsetDateTime[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_TIMESTAMP_WITH_TIMEZONE, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfGenericRecord(String fieldName, GenericRecord[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_COMPACT, value);
    }

    @Override
    public GenericRecordBuilder setNullableBoolean(String fieldName, Boolean value) {
        return set(fieldName, FieldKind.NULLABLE_BOOLEAN, value);
    }

    @Override
    public GenericRecordBuilder setNullableInt8(String fieldName, Byte value) {
        return set(fieldName, FieldKind.NULLABLE_INT8, value);
    }

    @Override
    public GenericRecordBuilder setNullableInt16(String fieldName, Short value) {
        return set(fieldName, FieldKind.NULLABLE_INT16, value);
    }

    @Override
    public GenericRecordBuilder setNullableInt32(String fieldName, Integer value) {
        return set(fieldName, FieldKind.NULLABLE_INT32, value);
    }

    @Override
    public GenericRecordBuilder setNullableInt64(String fieldName, Long value) {
        return set(fieldName, FieldKind.NULLABLE_INT64, value);
    }

    @Override
    public GenericRecordBuilder setNullableFloat32(String fieldName, Float value) {
        return set(fieldName, FieldKind.NULLABLE_FLOAT32, value);
    }

    @Override
    public GenericRecordBuilder setNullableFloat64(String fieldName, Double value) {
        return set(fieldName, FieldKind.NULLABLE_FLOAT64, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfNullableBoolean(String fieldName, Boolean[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_NULLABLE_BOOLEAN, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfNullableInt8(String fieldName, Byte[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT8, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfNullableInt16(String fieldName, Short[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT16, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfNullableInt32(String fieldName, Integer[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT32, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfNullableInt64(String fieldName, Long[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_NULLABLE_INT64, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfNullableFloat32(String fieldName, Float[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT32, value);
    }

    @Override
    public GenericRecordBuilder setArrayOfNullableFloat64(String fieldName, Double[] value) {
        return set(fieldName, FieldKind.ARRAY_OF_NULLABLE_FLOAT64, value);
    }
}
