package io.atoll.vectors;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** testdata/vectors holds exactly what the generator writes now (`make vectors` rewrites it). */
class CommittedVectorsTest {
    @Test
    void committedFilesAreWhatTheGeneratorWrites() throws IOException {
        Map<String, byte[]> generated = Generate.files();
        Path dir = VectorFiles.dir();
        TreeSet<String> committed = new TreeSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.json")) {
            ds.forEach(p -> committed.add(p.getFileName().toString()));
        }
        assertEquals(new TreeSet<>(generated.keySet()), committed, "vector files in " + dir + " (run `make vectors`)");
        for (Map.Entry<String, byte[]> f : generated.entrySet()) {
            String want = new String(f.getValue(), StandardCharsets.UTF_8);
            String got = Files.readString(dir.resolve(f.getKey()), StandardCharsets.UTF_8);
            assertEquals(want, got, f.getKey() + " differs from what the generator writes (run `make vectors`)");
        }
    }
}
