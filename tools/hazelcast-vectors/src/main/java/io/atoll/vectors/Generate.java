package io.atoll.vectors;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.hazelcast.instance.BuildInfoProvider;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command line: {@code Generate DIR} writes the committed vectors (testdata/vectors) into DIR,
 * every value serialized by Hazelcast. {@code make vectors} runs it on testdata/vectors; a test
 * checks that the committed files are what it writes.
 */
public final class Generate {
    private Generate() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: Generate DIR");
            System.exit(2);
        }
        Map<String, byte[]> files = files();
        Path dir = Paths.get(args[0]);
        Files.createDirectories(dir);
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            Files.write(dir.resolve(f.getKey()), f.getValue());
        }
        System.out.println("wrote " + files.size() + " vector files to " + dir);
    }

    /** The vector files, by name, as bytes. */
    public static Map<String, byte[]> files() throws IOException {
        Corpus corpus = new Corpus(new HazelcastObjects());
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<Map<String, Object>>> f : corpus.files().entrySet()) {
            out.put(f.getKey(), file("atoll", f.getValue(), true));
        }
        return out;
    }

    /**
     * One vector file: the set's name, Hazelcast's version, the partition count and the
     * vectors; indented for the committed files, on one line for large generated sets.
     */
    public static byte[] file(String set, List<Map<String, Object>> vectors, boolean indent) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("hazelcast_version", BuildInfoProvider.getBuildInfo().getVersion());
        root.put("set", set);
        root.put("partition_count", HazelcastObjects.PARTITION_COUNT);
        root.put("vectors", vectors);
        ObjectWriter w = indent ? WRITER : VectorVerifier.JSON.writer();
        return (w.writeValueAsString(root) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static final ObjectWriter WRITER = VectorVerifier.JSON.copy()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .writer(new DefaultPrettyPrinter().withObjectIndenter(new DefaultIndenter("  ", "\n"))
                    .withArrayIndenter(DefaultPrettyPrinter.FixedSpaceIndenter.instance));
}
