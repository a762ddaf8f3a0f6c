package io.atoll.vectors;

import io.atoll.client.serialization.AtollSerializationException;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.GenericRecord;
import io.atoll.client.serialization.SerializationService;
import io.atoll.client.serialization.TruncatedDataException;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Truncated and corrupted vectors: every prefix of every vector must fail with a typed
 * {@link AtollSerializationException}; random byte changes must either decode or fail
 * with one, never with anything else (index errors, negative sizes, out of memory).
 */
class HostileInputTest {
    private final VectorVerifier verifier = new VectorVerifier();

    /** Decodes and reads every field, nested values included. */
    static void decodeFully(SerializationService service, byte[] bytes) {
        Object o = service.toGenericObject(Data.fromByteArray(bytes));
        walk(o);
    }

    static void walk(Object o) {
        if (o instanceof GenericRecord) {
            GenericRecord r = (GenericRecord) o;
            for (String f : r.getFieldNames()) {
                walk(r.getValue(f));
            }
            if (r.getClassDefinition() != null) {
                r.getClassDefinition();
            }
            r.toString();
        } else if (o instanceof Object[]) {
            for (Object x : (Object[]) o) {
                walk(x);
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyPrefixFailsWithATypedException() {
        return VectorFiles.all().stream().map(v -> DynamicTest.dynamicTest(v.name(), () -> {
            SerializationService service = verifier.serviceFor(v);
            byte[] full = v.bytes();
            decodeFully(service, full);
            for (int len = 0; len < full.length; len++) {
                byte[] prefix = Arrays.copyOf(full, len);
                int n = len;
                if (len < Data.HEADER_SIZE) {
                    assertThrows(TruncatedDataException.class, () -> Data.fromByteArray(prefix), () -> "prefix of " + n + " bytes");
                    continue;
                }
                try {
                    decodeFully(service, prefix);
                    fail(v.name() + ": prefix of " + len + " of " + full.length + " bytes decoded without error");
                } catch (AtollSerializationException expected) {
                    // typed failure, as required
                } catch (Throwable t) {
                    throw new AssertionError(v.name() + ": prefix of " + len + " bytes threw " + t, t);
                }
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> randomCorruptionNeverThrowsAnythingElse() {
        return VectorFiles.all().stream().map(v -> DynamicTest.dynamicTest(v.name(), () -> {
            SerializationService service = verifier.serviceFor(v);
            byte[] full = v.bytes();
            Random rnd = new Random(v.name().hashCode());
            int rounds = full.length > 4096 ? 60 : 400;
            for (int round = 0; round < rounds; round++) {
                byte[] b = full.clone();
                int flips = 1 + rnd.nextInt(4);
                StringBuilder what = new StringBuilder();
                for (int i = 0; i < flips; i++) {
                    int pos = rnd.nextInt(b.length);
                    byte val = (byte) (rnd.nextInt(3) == 0 ? 0xff : rnd.nextInt(256));
                    b[pos] = val;
                    what.append(pos).append('=').append(val & 0xff).append(' ');
                }
                try {
                    decodeFully(service, b);
                } catch (AtollSerializationException expected) {
                    // typed failure
                } catch (Throwable t) {
                    throw new AssertionError(v.name() + ": corruption [" + what + "] threw " + t, t);
                }
            }
        }));
    }
}
