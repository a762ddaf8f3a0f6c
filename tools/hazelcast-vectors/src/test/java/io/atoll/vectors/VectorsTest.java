package io.atoll.vectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One test per committed vector ({@code testdata/vectors}) against the Java SDK: decode and compare with the tagged value, rebuild from JSON and
 * compare bytes, partition hash and id, compact schema ids and layouts or the portable
 * class definition.
 */
class VectorsTest {
    private static final VectorVerifier VERIFIER = new VectorVerifier();

    static List<VectorVerifier.Vector> vectors() {
        return VectorFiles.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void vector(VectorVerifier.Vector v) {
        assertAll(v.name(),
                check(v, "decode", VERIFIER::checkDecode),
                check(v, "encode", VERIFIER::checkEncode),
                check(v, "partition", VERIFIER::checkPartition),
                check(v, "layout", VERIFIER::checkLayout));
    }

    private static Executable check(VectorVerifier.Vector v, String what, Function<VectorVerifier.Vector, List<String>> f) {
        return () -> {
            List<String> problems = f.apply(v);
            assertTrue(problems.isEmpty(), () -> what + ": " + String.join("; ", problems));
        };
    }

    @Test
    void vectorsAreThere() {
        assertFalse(VectorFiles.all().isEmpty(), "no vectors in " + VectorFiles.dir());
        for (VectorVerifier.Vector v : VectorFiles.all()) {
            assertNotNull(v.bytes(), v.name() + " has no valid data_hex");
        }
    }
}
