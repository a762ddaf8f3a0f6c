package io.atoll.client.serialization.internal.portable;

import io.atoll.client.serialization.internal.core.Context;

import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.ClassDefinition;
import io.atoll.client.serialization.FieldDefinition;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.InvalidFieldException;
import io.atoll.client.serialization.Portable;
import io.atoll.client.serialization.PortableFactory;
import io.atoll.client.serialization.UnknownTypeException;
import io.atoll.client.serialization.VersionedPortable;
import io.atoll.client.serialization.internal.core.BufferInput;
import io.atoll.client.serialization.internal.core.BufferOutput;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** Portable serialization: factories, class definitions, writing and reading values. */
public final class PortableCodec {
    private final Context service;
    private final Map<Integer, PortableFactory> factories;
    private final int portableVersion;
    private final ConcurrentMap<String, ClassDefinition> definitions = new ConcurrentHashMap<>();
    private final List<Consumer<ClassDefinition>> listeners = new CopyOnWriteArrayList<>();

    public PortableCodec(Context service, Map<Integer, PortableFactory> factories, Iterable<ClassDefinition> defs,
                  int portableVersion) {
        this.service = service;
        this.factories = Map.copyOf(factories);
        this.portableVersion = portableVersion;
        for (ClassDefinition cd : defs) {
            register(cd);
        }
    }

    private static String key(int factoryId, int classId, int version) {
        return factoryId + ":" + classId + ":" + version;
    }

    int portableVersion() {
        return portableVersion;
    }

    /** Registers a class definition and the nested ones it carries. */
    public void register(ClassDefinition cd) {
        ClassDefinition prev = definitions.putIfAbsent(key(cd.getFactoryId(), cd.getClassId(), cd.getVersion()), cd);
        if (prev != null && !prev.equals(cd)) {
            throw new IllegalArgumentException("conflicting class definitions for (" + cd.getFactoryId() + "," + cd.getClassId()
                    + ",v" + cd.getVersion() + "): " + prev + " and " + cd);
        }
        if (prev == null) {
            for (Consumer<ClassDefinition> l : listeners) {
                l.accept(cd);
            }
        }
        for (ClassDefinition n : cd.nestedDefinitions().values()) {
            register(n);
        }
    }

    public void addListener(Consumer<ClassDefinition> listener) {
        listeners.add(listener);
    }

    public Collection<ClassDefinition> all() {
        return new ArrayList<>(definitions.values());
    }

    public ClassDefinition lookup(int factoryId, int classId, int version) {
        return definitions.get(key(factoryId, classId, version));
    }

    static int versionOf(Portable p, int defaultVersion) {
        return p instanceof VersionedPortable ? ((VersionedPortable) p).getClassVersion() : defaultVersion;
    }

    /** The registered class definition of {@code p}, or one derived from its writePortable calls. */
    ClassDefinition classDefinitionOf(Portable p, int depth) {
        service.checkWriteDepth(depth);
        int version = versionOf(p, portableVersion);
        ClassDefinition cd = lookup(p.getFactoryId(), p.getClassId(), version);
        if (cd == null) {
            ClassDefinitionWriter w = new ClassDefinitionWriter(this, p.getFactoryId(), p.getClassId(), version, depth);
            try {
                p.writePortable(w);
            } catch (IOException | RuntimeException e) {
                if (e instanceof AtollSerializationException) {
                    throw (AtollSerializationException) e;
                }
                throw new AtollSerializationException("writePortable of " + p.getClass().getName() + " failed", e);
            }
            cd = w.build();
            register(cd);
        }
        return cd;
    }

    /** Factory id, class id, version, body (the payload of type -1). */
    public void writeTopLevel(BufferOutput out, Object value, int depth) {
        if (value instanceof GenericRecord) {
            ClassDefinition cd = ((GenericRecord) value).getClassDefinition();
            out.writeInt(cd.getFactoryId());
            out.writeInt(cd.getClassId());
        } else {
            Portable p = (Portable) value;
            out.writeInt(p.getFactoryId());
            out.writeInt(p.getClassId());
        }
        writeBody(out, value, Integer.MIN_VALUE, Integer.MIN_VALUE, depth);
    }

    /** Version + object body of a Portable or a portable generic record. */
    void writeBody(BufferOutput out, Object value, int expectedFactoryId, int expectedClassId, int depth) {
        service.checkWriteDepth(depth);
        if (value instanceof GenericRecord) {
            GenericRecord r = (GenericRecord) value;
            if (r.getFormat() != GenericRecord.Format.PORTABLE) {
                throw new InvalidFieldException("a " + r.getFormat() + " record cannot be written as a portable value");
            }
            ClassDefinition cd = r.getClassDefinition();
            checkIds(cd.getFactoryId(), cd.getClassId(), expectedFactoryId, expectedClassId);
            out.writeInt(cd.getVersion());
            DefaultPortableWriter w = new DefaultPortableWriter(this, out, cd, depth);
            for (FieldDefinition f : cd.getFields()) {
                w.write(f.getName(), f.getType(), r.getValue(f.getName()));
            }
            w.end();
            return;
        }
        if (!(value instanceof Portable)) {
            throw new InvalidFieldException("a " + value.getClass().getName() + " cannot be written as a portable value");
        }
        Portable p = (Portable) value;
        checkIds(p.getFactoryId(), p.getClassId(), expectedFactoryId, expectedClassId);
        ClassDefinition cd = classDefinitionOf(p, depth);
        out.writeInt(cd.getVersion());
        DefaultPortableWriter w = new DefaultPortableWriter(this, out, cd, depth);
        try {
            p.writePortable(w);
        } catch (IOException | RuntimeException e) {
            if (e instanceof AtollSerializationException) {
                throw (AtollSerializationException) e;
            }
            throw new AtollSerializationException("writePortable of " + p.getClass().getName() + " failed", e);
        }
        w.end();
    }

    private static void checkIds(int fid, int cid, int expectedFid, int expectedCid) {
        if (expectedFid != Integer.MIN_VALUE && (fid != expectedFid || cid != expectedCid)) {
            throw new InvalidFieldException("nested portable (" + fid + "," + cid + ") written where the class definition expects ("
                    + expectedFid + "," + expectedCid + ")");
        }
    }

    /** Reads factory id, class id, version and body at the input's position; leaves it after the body. */
    public Object read(BufferInput in, boolean generic) {
        int fid = in.readInt();
        int cid = in.readInt();
        int version = in.readInt();
        PortableRecord r = PortableRecord.parse(service, in.buf, fid, cid, version, in.pos, in.limit, in.depth);
        in.position(r.end);
        return generic ? r : toObject(r);
    }

    /** An instance from the registered factory, or the record if there is none. */
    Object toObject(PortableRecord r) {
        PortableFactory f = factories.get(r.factoryId);
        Portable p = f == null ? null : f.create(r.classId);
        if (p == null) {
            return r;
        }
        fill(p, r);
        return p;
    }

    /** Like {@link #toObject} but a missing factory is an error (nested portables of a Portable class). */
    Object toPortable(PortableRecord r) {
        PortableFactory f = factories.get(r.factoryId);
        Portable p = f == null ? null : f.create(r.classId);
        if (p == null) {
            throw new UnknownTypeException("no PortableFactory creates portable (" + r.factoryId + "," + r.classId + ")");
        }
        fill(p, r);
        return p;
    }

    private void fill(Portable p, PortableRecord r) {
        boolean morphing = versionOf(p, portableVersion) != r.version;
        try {
            p.readPortable(new DefaultPortableReader(this, r, morphing));
        } catch (IOException | RuntimeException e) {
            if (e instanceof AtollSerializationException) {
                throw (AtollSerializationException) e;
            }
            throw new AtollSerializationException("readPortable of " + p.getClass().getName() + " failed", e);
        }
    }

    /** Fails unless name is a valid Portable field name: non-empty ASCII of at most 32767 characters. */
    public static void checkFieldName(String name) {
        if (name == null || name.isEmpty() || name.length() > Short.MAX_VALUE) {
            throw new IllegalArgumentException("invalid portable field name: " + name);
        }
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) > 0x7f) {
                throw new IllegalArgumentException("portable field names must be ASCII: " + name);
            }
        }
    }
}
