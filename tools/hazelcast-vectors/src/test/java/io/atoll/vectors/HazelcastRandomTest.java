package io.atoll.vectors;

import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.impl.HeapData;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random objects, serialized by Hazelcast 5.7 and by the Java SDK, must be byte-identical both
 * ways: the SDK encodes each value (rebuilt from its description) to Hazelcast's bytes and
 * decodes Hazelcast's bytes to the value, partition hash and id agree, and Hazelcast reads
 * the bytes back and writes the same bytes again. The objects are also written as vector
 * files under target/random-vectors, which the Go test (TestHazelcastRandom in
 * internal/vectors) checks in the same `make test`.
 *
 * <p>Objects per run: {@code atoll.random.count} (pom); seed: {@code atoll.random.seed}, a new
 * one per run when 0. A failure names the seed and the object's index: rerun with
 * {@code make hazelcast-random SEED=... COUNT=...}.
 */
class HazelcastRandomTest {
    private static final int PER_FILE = 10_000;

    @Test
    void hazelcastAndTheSdkAgreeOnRandomObjects() throws IOException {
        int count = Integer.getInteger("atoll.random.count", 3000);
        long seed = Long.getLong("atoll.random.seed", 0L);
        if (seed == 0) {
            seed = System.nanoTime() ^ System.identityHashCode(this);
        }
        Path out = Paths.get(System.getProperty("atoll.build.dir", "target"), "random-vectors");
        Files.createDirectories(out);
        try (var old = Files.newDirectoryStream(out, "*.json")) {
            for (Path p : old) {
                Files.delete(p);
            }
        }
        HazelcastObjects hz = new HazelcastObjects();
        VectorJson json = new VectorJson(hz);
        VectorVerifier verifier = new VectorVerifier();
        RandomObjects random = new RandomObjects(seed);
        List<Map<String, Object>> file = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            RandomObjects.Item item = random.next();
            String name = "random_" + seed + "_" + i;
            Map<String, Object> v = json.random(name, item);
            List<String> problems = new ArrayList<>(verifier.verify(VectorVerifier.Vector.of(v, HazelcastObjects.PARTITION_COUNT)));
            byte[] bytes = HexFormat.of().parseHex((String) v.get("data_hex"));
            try {
                Data again = hz.service().toData(hz.service().toObject(new HeapData(bytes)));
                if (!Arrays.equals(bytes, again.toByteArray())) {
                    problems.add("Hazelcast reads the bytes and writes others: " + HexFormat.of().formatHex(again.toByteArray()));
                }
            } catch (RuntimeException e) {
                problems.add("Hazelcast cannot read its bytes back: " + e);
            }
            if (!problems.isEmpty() && failures.size() < 5) {
                failures.add("seed " + seed + ", object " + i + ": " + String.join("; ", problems) + "\n  vector: "
                        + VectorVerifier.JSON.writeValueAsString(v));
            }
            file.add(v);
            if (file.size() == PER_FILE || i == count - 1) {
                Files.write(out.resolve(String.format("random-%d-%06d.json", seed, i / PER_FILE)), Generate.file("random", file, false));
                file.clear();
            }
        }
        System.out.printf("random comparison with Hazelcast: %d objects, seed %d, %.1f s (vectors in %s)%n",
                count, seed, (System.nanoTime() - start) / 1e9, out);
        if (!failures.isEmpty()) {
            fail(failures.size() + " object(s) differ (first shown; rerun with -Datoll.random.seed=" + seed + "):\n"
                    + String.join("\n", failures));
        }
    }
}
