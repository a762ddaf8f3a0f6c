package io.atoll.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java quick start of the repository's README works as written: its Maven coordinates are
 * this project's, and its code compiles against the SDK and, run against a member of cluster
 * "dev" (only the address changed to the test member's), prints what its comments say.
 * {@code bin/check-quickstart} does the same through Maven and the documented member command.
 */
class ReadmeQuickStartTest {
    private static final Pattern TAG = Pattern.compile("<(groupId|artifactId|version)>([^<]+)</\\1>");

    static String readme() throws Exception {
        return Files.readString(GoMember.repoDir().resolve("README.md"));
    }

    /** The fenced block of a language that contains a marker. */
    static String block(String text, String lang, String marker) {
        Matcher m = Pattern.compile("```" + lang + "\\n(.*?)```", Pattern.DOTALL).matcher(text);
        while (m.find()) {
            if (m.group(1).contains(marker)) {
                return m.group(1);
            }
        }
        throw new AssertionError("no ```" + lang + " block with " + marker + " in the README");
    }

    /** Maven coordinates in the order groupId, artifactId, version (the first of each). */
    static List<String> coordinates(String xml) {
        String[] out = new String[3];
        Matcher m = TAG.matcher(xml);
        while (m.find()) {
            int i = List.of("groupId", "artifactId", "version").indexOf(m.group(1));
            if (out[i] == null) {
                out[i] = m.group(2).trim();
            }
        }
        return List.of(out);
    }

    /** What the comments of the println lines say the program prints. */
    static List<String> expectedOutput(String source) {
        List<String> out = new ArrayList<>();
        for (String line : source.split("\n")) {
            int c = line.lastIndexOf("// ");
            if (line.contains("System.out.println(") && c > 0) {
                out.add(line.substring(c + 3).trim());
            }
        }
        return out;
    }

    @Test
    void mavenSnippetNamesThisProject() throws Exception {
        String snippet = block(readme(), "xml", "<artifactId>atoll-client</artifactId>");
        String pom = Files.readString(GoMember.repoDir().resolve("clients/java/pom.xml"));
        // The pom's own coordinates come before its parent-less dependencies.
        assertEquals(coordinates(pom.substring(0, pom.indexOf("<properties>"))), coordinates(snippet));
    }

    @Test
    void quickStartCompilesAndPrintsWhatItSays(@TempDir Path dir) throws Exception {
        String source = block(readme(), "java", "public class QuickStart");
        List<String> expected = expectedOutput(source);
        assertTrue(expected.size() >= 4, "expected output from the comments: " + expected);
        try (GoMember member = GoMember.start("dev")) {
            String local = source.replace("\"127.0.0.1:5701\"", "\"" + member.address() + "\"");
            assertTrue(!local.equals(source), "the quick start connects to 127.0.0.1:5701");
            Path file = dir.resolve("QuickStart.java");
            Files.writeString(file, local);
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            int rc = javac.run(null, diagnostics, diagnostics, "--release", "17", "-Xlint:all", "-Werror", "-proc:none",
                    "-classpath", System.getProperty("java.class.path"), "-d", dir.toString(), file.toString());
            assertEquals(0, rc, diagnostics.toString(StandardCharsets.UTF_8));

            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            PrintStream stdout = System.out;
            try (URLClassLoader loader = new URLClassLoader(new URL[]{dir.toUri().toURL()}, getClass().getClassLoader())) {
                Method main = loader.loadClass("QuickStart").getMethod("main", String[].class);
                System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
                main.invoke(null, (Object) new String[0]);
            } finally {
                System.setOut(stdout);
            }
            assertEquals(expected, printed.toString(StandardCharsets.UTF_8).lines().toList());
        }
    }
}
