package io.atoll.client.serialization.vectors;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/** Locates the shared test vectors (system property {@code atoll.vectors.dir}, set by the pom). */
public final class VectorFiles {
    private static List<VectorVerifier.Vector> cached;

    private VectorFiles() {
    }

    public static Path dir() {
        String p = System.getProperty("atoll.vectors.dir");
        if (p == null) {
            throw new IllegalStateException("system property atoll.vectors.dir is not set (run the tests through Maven)");
        }
        Path dir = Paths.get(p).toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("test vector directory " + dir + " does not exist");
        }
        return dir;
    }

    public static synchronized List<VectorVerifier.Vector> all() {
        if (cached == null) {
            try {
                cached = VectorVerifier.load(dir());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (cached.isEmpty()) {
                throw new IllegalStateException("no vectors in " + dir());
            }
        }
        return cached;
    }

    public static VectorVerifier.Vector named(String name) {
        for (VectorVerifier.Vector v : all()) {
            if (v.name().equals(name)) {
                return v;
            }
        }
        throw new IllegalArgumentException("no vector named " + name);
    }

    public static byte[] bytes(String name) {
        return named(name).bytes();
    }
}
