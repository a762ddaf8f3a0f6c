package io.atoll.client.serialization.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * The bytes of the repository's committed vectors ({@code testdata/vectors}) by name. The
 * vectors are checked in full by tools/hazelcast-vectors; these tests only need their bytes.
 */
final class TestVectors {
    private static Map<String, byte[]> byName;

    private TestVectors() {
    }

    static synchronized byte[] bytes(String name) {
        if (byName == null) {
            byName = load(Paths.get(System.getProperty("atoll.repo.dir"), "testdata", "vectors"));
        }
        byte[] b = byName.get(name);
        if (b == null) {
            throw new IllegalArgumentException("no vector named " + name);
        }
        return b.clone();
    }

    private static Map<String, byte[]> load(Path dir) {
        Map<String, byte[]> out = new HashMap<>();
        ObjectMapper mapper = new ObjectMapper();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
            for (Path f : files) {
                for (JsonNode v : mapper.readTree(f.toFile()).path("vectors")) {
                    out.put(v.path("name").asText(), HexFormat.of().parseHex(v.path("data_hex").asText()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
