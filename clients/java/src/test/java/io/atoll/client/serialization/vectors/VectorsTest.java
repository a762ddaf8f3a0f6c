package io.atoll.client.serialization.vectors;

import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One container per vector of the shared set: decode and compare with the tagged value,
 * rebuild from JSON and compare bytes, partition hash/id, compact schema layout or
 * portable class definition.
 */
class VectorsTest {
    private final VectorVerifier verifier = new VectorVerifier();

    @TestFactory
    Stream<DynamicContainer> vectors() {
        return VectorFiles.all().stream().map(v -> DynamicContainer.dynamicContainer(v.name(), Stream.of(
                check(v, "decode", verifier::checkDecode),
                check(v, "encode", verifier::checkEncode),
                check(v, "partition", verifier::checkPartition),
                check(v, "layout", verifier::checkLayout))));
    }

    private static DynamicTest check(VectorVerifier.Vector v, String what, Function<VectorVerifier.Vector, List<String>> f) {
        return DynamicTest.dynamicTest(what, () -> {
            List<String> problems = f.apply(v);
            assertTrue(problems.isEmpty(), () -> v.name() + " " + what + ": " + String.join("; ", problems));
        });
    }

    @Test
    void allSharedVectorsAreThere() {
        assertEquals(80, VectorFiles.all().size(), "the shared set has 80 vectors");
    }
}
