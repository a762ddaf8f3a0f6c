package io.atoll.vectors;

import com.hazelcast.config.SerializationConfig;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.impl.AbstractSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.internal.serialization.impl.compact.FieldDescriptor;
import com.hazelcast.internal.serialization.impl.compact.Schema;
import com.hazelcast.internal.serialization.impl.compact.SchemaService;
import com.hazelcast.internal.util.HashUtil;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.ClassDefinition;
import com.hazelcast.nio.serialization.ClassDefinitionBuilder;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.FieldKind;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.nio.serialization.genericrecord.GenericRecord;
import com.hazelcast.nio.serialization.genericrecord.GenericRecordBuilder;
import io.atoll.bench.hazelcast.model.Model;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hazelcast's own serialization service (default configuration: big-endian, 271 partitions)
 * and the conversion of {@link Obj} descriptions into what it serializes: compact and portable
 * generic records, and identified objects that write their fields with the listed calls.
 * Identified factory ids {@link #FIRST_DYNAMIC_FACTORY} and up are answered from the layouts of
 * the objects converted so far, so the service also reads them back.
 */
public final class HazelcastObjects {
    public static final int PARTITION_COUNT = 271;
    /** Identified factories of described objects; lower ids belong to the benchmark model. */
    public static final int FIRST_DYNAMIC_FACTORY = 10;
    static final int DYNAMIC_FACTORIES = 8;

    private final Map<Long, Schema> schemas = new ConcurrentHashMap<>();
    private final Map<String, Obj> layouts = new ConcurrentHashMap<>();
    private final Map<String, ClassDefinition> classes = new ConcurrentHashMap<>();
    private final AbstractSerializationService service;

    public HazelcastObjects() {
        SerializationConfig config = Model.register(new SerializationConfig());
        for (int f = FIRST_DYNAMIC_FACTORY; f < FIRST_DYNAMIC_FACTORY + DYNAMIC_FACTORIES; f++) {
            int factoryId = f;
            config.addDataSerializableFactory(f, (DataSerializableFactory) classId -> {
                Obj layout = layouts.get(factoryId + "/" + classId);
                return layout == null ? null : new Described(layout, this);
            });
        }
        service = (AbstractSerializationService) new DefaultSerializationServiceBuilder()
                .setConfig(config)
                .setSchemaService(new SchemaService() {
                    @Override
                    public Schema get(long schemaId) {
                        return schemas.get(schemaId);
                    }

                    @Override
                    public void put(Schema schema) {
                        schemas.putIfAbsent(schema.getSchemaId(), schema);
                    }

                    @Override
                    public void putLocal(Schema schema) {
                        put(schema);
                    }
                })
                .build();
    }

    public AbstractSerializationService service() {
        return service;
    }

    /** Serializes an object (a described one, a model object or a built-in value). */
    public Data toData(Object o) {
        return service.toData(o instanceof Obj ? toHazelcast((Obj) o) : o);
    }

    /** Serializes a compact object with its schema in the data (type id -56). */
    public Data toDataWithSchema(Object o) {
        return service.toDataWithSchema(o instanceof Obj ? toHazelcast((Obj) o) : o);
    }

    public static int partitionId(Data d) {
        return HashUtil.hashToIndex(d.getPartitionHash(), PARTITION_COUNT);
    }

    /** The schema Hazelcast computes for a compact description (its id and field layout). */
    public static Schema schemaOf(Obj o) {
        List<FieldDescriptor> fields = new ArrayList<>();
        for (Obj.Field f : o.fields()) {
            fields.add(new FieldDescriptor(f.name(), FieldKind.valueOf(f.kind())));
        }
        return new Schema(o.typeName, fields);
    }

    /** The class definition of a portable description, from its fields (nested ones from their prototypes). */
    public ClassDefinition classDefinition(Obj o) {
        String key = o.identity();
        ClassDefinition known = classes.get(key);
        if (known != null) {
            return known;
        }
        ClassDefinitionBuilder b = new ClassDefinitionBuilder(o.factoryId, o.classId, o.version);
        for (Obj.Field f : o.fields()) {
            String n = f.name();
            switch (f.kind()) {
                case "BOOLEAN": b.addBooleanField(n); break;
                case "BYTE": b.addByteField(n); break;
                case "CHAR": b.addCharField(n); break;
                case "SHORT": b.addShortField(n); break;
                case "INT": b.addIntField(n); break;
                case "LONG": b.addLongField(n); break;
                case "FLOAT": b.addFloatField(n); break;
                case "DOUBLE": b.addDoubleField(n); break;
                case "UTF": b.addStringField(n); break;
                case "DECIMAL": b.addDecimalField(n); break;
                case "TIME": b.addTimeField(n); break;
                case "DATE": b.addDateField(n); break;
                case "TIMESTAMP": b.addTimestampField(n); break;
                case "TIMESTAMP_WITH_TIMEZONE": b.addTimestampWithTimezoneField(n); break;
                case "BOOLEAN_ARRAY": b.addBooleanArrayField(n); break;
                case "BYTE_ARRAY": b.addByteArrayField(n); break;
                case "CHAR_ARRAY": b.addCharArrayField(n); break;
                case "SHORT_ARRAY": b.addShortArrayField(n); break;
                case "INT_ARRAY": b.addIntArrayField(n); break;
                case "LONG_ARRAY": b.addLongArrayField(n); break;
                case "FLOAT_ARRAY": b.addFloatArrayField(n); break;
                case "DOUBLE_ARRAY": b.addDoubleArrayField(n); break;
                case "UTF_ARRAY": b.addStringArrayField(n); break;
                case "DECIMAL_ARRAY": b.addDecimalArrayField(n); break;
                case "TIME_ARRAY": b.addTimeArrayField(n); break;
                case "DATE_ARRAY": b.addDateArrayField(n); break;
                case "TIMESTAMP_ARRAY": b.addTimestampArrayField(n); break;
                case "TIMESTAMP_WITH_TIMEZONE_ARRAY": b.addTimestampWithTimezoneArrayField(n); break;
                case "PORTABLE": b.addPortableField(n, classDefinition(f.itemType())); break;
                case "PORTABLE_ARRAY": b.addPortableArrayField(n, classDefinition(f.itemType())); break;
                default: throw new IllegalArgumentException("no portable type " + f.kind());
            }
        }
        ClassDefinition cd = b.build();
        ClassDefinition prev = classes.putIfAbsent(key, cd);
        return prev == null ? cd : prev;
    }

    /** The Hazelcast object of a description. */
    public Object toHazelcast(Obj o) {
        switch (o.format) {
            case COMPACT: {
                GenericRecordBuilder b = GenericRecordBuilder.compact(o.typeName);
                for (Obj.Field f : o.fields()) {
                    set(b, f.valueKind(), f.name(), records(f.value()));
                }
                return b.build();
            }
            case PORTABLE: {
                GenericRecordBuilder b = GenericRecordBuilder.portable(classDefinition(o));
                for (Obj.Field f : o.fields()) {
                    set(b, f.valueKind(), f.name(), records(f.value()));
                }
                return b.build();
            }
            default:
                register(o);
                return new Described(o, this);
        }
    }

    private void register(Obj o) {
        if (o.factoryId < FIRST_DYNAMIC_FACTORY || o.factoryId >= FIRST_DYNAMIC_FACTORY + DYNAMIC_FACTORIES) {
            throw new IllegalArgumentException("identified descriptions use factories " + FIRST_DYNAMIC_FACTORY + ".."
                    + (FIRST_DYNAMIC_FACTORY + DYNAMIC_FACTORIES - 1) + ", not " + o.factoryId);
        }
        layouts.putIfAbsent(o.identity(), o);
    }

    private Object records(Object v) {
        if (v instanceof Obj) {
            return toHazelcast((Obj) v);
        }
        if (v instanceof Obj[]) {
            Obj[] items = (Obj[]) v;
            GenericRecord[] out = new GenericRecord[items.length];
            for (int i = 0; i < items.length; i++) {
                out[i] = items[i] == null ? null : (GenericRecord) toHazelcast(items[i]);
            }
            return out;
        }
        return v;
    }

    private static void set(GenericRecordBuilder b, String vk, String n, Object v) {
        switch (vk) {
            case "BOOLEAN": b.setBoolean(n, (Boolean) v); break;
            case "INT8": b.setInt8(n, (Byte) v); break;
            case "CHAR": b.setChar(n, (Character) v); break;
            case "INT16": b.setInt16(n, (Short) v); break;
            case "INT32": b.setInt32(n, (Integer) v); break;
            case "INT64": b.setInt64(n, (Long) v); break;
            case "FLOAT32": b.setFloat32(n, (Float) v); break;
            case "FLOAT64": b.setFloat64(n, (Double) v); break;
            case "NULLABLE_BOOLEAN": b.setNullableBoolean(n, (Boolean) v); break;
            case "NULLABLE_INT8": b.setNullableInt8(n, (Byte) v); break;
            case "NULLABLE_INT16": b.setNullableInt16(n, (Short) v); break;
            case "NULLABLE_INT32": b.setNullableInt32(n, (Integer) v); break;
            case "NULLABLE_INT64": b.setNullableInt64(n, (Long) v); break;
            case "NULLABLE_FLOAT32": b.setNullableFloat32(n, (Float) v); break;
            case "NULLABLE_FLOAT64": b.setNullableFloat64(n, (Double) v); break;
            case "STRING": b.setString(n, (String) v); break;
            case "DECIMAL": b.setDecimal(n, (BigDecimal) v); break;
            case "TIME": b.setTime(n, (LocalTime) v); break;
            case "DATE": b.setDate(n, (LocalDate) v); break;
            case "TIMESTAMP": b.setTimestamp(n, (LocalDateTime) v); break;
            case "TIMESTAMP_WITH_TIMEZONE": b.setTimestampWithTimezone(n, (OffsetDateTime) v); break;
            case "OBJECT": b.setGenericRecord(n, (GenericRecord) v); break;
            case "ARRAY_OF_BOOLEAN": b.setArrayOfBoolean(n, (boolean[]) v); break;
            case "ARRAY_OF_INT8": b.setArrayOfInt8(n, (byte[]) v); break;
            case "ARRAY_OF_CHAR": b.setArrayOfChar(n, (char[]) v); break;
            case "ARRAY_OF_INT16": b.setArrayOfInt16(n, (short[]) v); break;
            case "ARRAY_OF_INT32": b.setArrayOfInt32(n, (int[]) v); break;
            case "ARRAY_OF_INT64": b.setArrayOfInt64(n, (long[]) v); break;
            case "ARRAY_OF_FLOAT32": b.setArrayOfFloat32(n, (float[]) v); break;
            case "ARRAY_OF_FLOAT64": b.setArrayOfFloat64(n, (double[]) v); break;
            case "ARRAY_OF_NULLABLE_BOOLEAN": b.setArrayOfNullableBoolean(n, (Boolean[]) v); break;
            case "ARRAY_OF_NULLABLE_INT8": b.setArrayOfNullableInt8(n, (Byte[]) v); break;
            case "ARRAY_OF_NULLABLE_INT16": b.setArrayOfNullableInt16(n, (Short[]) v); break;
            case "ARRAY_OF_NULLABLE_INT32": b.setArrayOfNullableInt32(n, (Integer[]) v); break;
            case "ARRAY_OF_NULLABLE_INT64": b.setArrayOfNullableInt64(n, (Long[]) v); break;
            case "ARRAY_OF_NULLABLE_FLOAT32": b.setArrayOfNullableFloat32(n, (Float[]) v); break;
            case "ARRAY_OF_NULLABLE_FLOAT64": b.setArrayOfNullableFloat64(n, (Double[]) v); break;
            case "ARRAY_OF_STRING": b.setArrayOfString(n, (String[]) v); break;
            case "ARRAY_OF_DECIMAL": b.setArrayOfDecimal(n, (BigDecimal[]) v); break;
            case "ARRAY_OF_TIME": b.setArrayOfTime(n, (LocalTime[]) v); break;
            case "ARRAY_OF_DATE": b.setArrayOfDate(n, (LocalDate[]) v); break;
            case "ARRAY_OF_TIMESTAMP": b.setArrayOfTimestamp(n, (LocalDateTime[]) v); break;
            case "ARRAY_OF_TIMESTAMP_WITH_TIMEZONE": b.setArrayOfTimestampWithTimezone(n, (OffsetDateTime[]) v); break;
            case "ARRAY_OF_OBJECT": b.setArrayOfGenericRecord(n, (GenericRecord[]) v); break;
            default: throw new IllegalArgumentException("no setter for value kind " + vk);
        }
    }

    /**
     * An identified object that writes its description's fields with the listed calls, and
     * reads them back by the layout of its type (the fields' calls, in order).
     */
    static final class Described implements IdentifiedDataSerializable {
        private Obj obj;
        private final HazelcastObjects owner;

        Described(Obj obj, HazelcastObjects owner) {
            this.obj = obj;
            this.owner = owner;
        }

        @Override
        public int getFactoryId() {
            return obj.factoryId;
        }

        @Override
        public int getClassId() {
            return obj.classId;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            for (Obj.Field f : obj.fields()) {
                Object v = f.value();
                switch (f.kind()) {
                    case "writeBoolean": out.writeBoolean((Boolean) v); break;
                    case "writeByte": out.writeByte((Byte) v); break;
                    case "writeChar": out.writeChar((Character) v); break;
                    case "writeShort": out.writeShort((Short) v); break;
                    case "writeInt": out.writeInt((Integer) v); break;
                    case "writeLong": out.writeLong((Long) v); break;
                    case "writeFloat": out.writeFloat((Float) v); break;
                    case "writeDouble": out.writeDouble((Double) v); break;
                    case "writeString": out.writeString((String) v); break;
                    case "writeBooleanArray": out.writeBooleanArray((boolean[]) v); break;
                    case "writeByteArray": out.writeByteArray((byte[]) v); break;
                    case "writeCharArray": out.writeCharArray((char[]) v); break;
                    case "writeShortArray": out.writeShortArray((short[]) v); break;
                    case "writeIntArray": out.writeIntArray((int[]) v); break;
                    case "writeLongArray": out.writeLongArray((long[]) v); break;
                    case "writeFloatArray": out.writeFloatArray((float[]) v); break;
                    case "writeDoubleArray": out.writeDoubleArray((double[]) v); break;
                    case "writeStringArray": out.writeStringArray((String[]) v); break;
                    case "writeObject": out.writeObject(object(v)); break;
                    case "writeObjectArray": {
                        Object[] items = (Object[]) v;
                        out.writeInt(items == null ? -1 : items.length);
                        if (items != null) {
                            for (Object item : items) {
                                out.writeObject(object(item));
                            }
                        }
                        break;
                    }
                    case "writeDataInline": described(v).writeData(out); break;
                    case "writeInlineArray": {
                        Obj[] items = (Obj[]) v;
                        out.writeInt(items == null ? -1 : items.length);
                        if (items != null) {
                            for (Obj item : items) {
                                described(item).writeData(out);
                            }
                        }
                        break;
                    }
                    default: throw new IOException("no write call " + f.kind());
                }
            }
        }

        private Object object(Object v) {
            return v instanceof Obj ? owner.toHazelcast((Obj) v) : v;
        }

        private Described described(Object v) {
            owner.register((Obj) v);
            return new Described((Obj) v, owner);
        }


        /** Reads the fields by the layout this object was created with (values are read anew). */
        @Override
        public void readData(ObjectDataInput in) throws IOException {
            Obj read = obj.sameType();
            for (Obj.Field f : obj.fields()) {
                read.add(f.name(), f.kind(), f.valueKind(), f.itemType(), readField(in, f));
            }
            obj = read;
        }

        private Object readField(ObjectDataInput in, Obj.Field f) throws IOException {
            switch (f.kind()) {
                case "writeBoolean": return in.readBoolean();
                case "writeByte": return in.readByte();
                case "writeChar": return in.readChar();
                case "writeShort": return in.readShort();
                case "writeInt": return in.readInt();
                case "writeLong": return in.readLong();
                case "writeFloat": return in.readFloat();
                case "writeDouble": return in.readDouble();
                case "writeString": return in.readString();
                case "writeBooleanArray": return in.readBooleanArray();
                case "writeByteArray": return in.readByteArray();
                case "writeCharArray": return in.readCharArray();
                case "writeShortArray": return in.readShortArray();
                case "writeIntArray": return in.readIntArray();
                case "writeLongArray": return in.readLongArray();
                case "writeFloatArray": return in.readFloatArray();
                case "writeDoubleArray": return in.readDoubleArray();
                case "writeStringArray": return in.readStringArray();
                case "writeObject": return in.readObject();
                case "writeObjectArray": {
                    int n = in.readInt();
                    if (n < 0) {
                        return null;
                    }
                    Object[] items = new Object[n];
                    for (int i = 0; i < n; i++) {
                        items[i] = in.readObject();
                    }
                    return items;
                }
                case "writeDataInline": return readInline(in, f.itemType(), owner);
                case "writeInlineArray": {
                    int n = in.readInt();
                    if (n < 0) {
                        return null;
                    }
                    Obj[] items = new Obj[n];
                    for (int i = 0; i < n; i++) {
                        items[i] = readInline(in, f.itemType(), owner);
                    }
                    return items;
                }
                default: throw new IOException("no read call for " + f.kind());
            }
        }

        private static Obj readInline(ObjectDataInput in, Obj layout, HazelcastObjects owner) throws IOException {
            Described d = new Described(layout, owner);
            d.readData(in);
            return d.obj;
        }
    }
}
