package io.atoll.bench.hazelcast;

import java.util.List;

/** The module-system flags Hazelcast asks for on Java 17 (also in bench/hazelcast/run). */
final class JvmFlags {
    static final List<String> HAZELCAST = List.of(
            "--add-modules", "java.se",
            "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

    private JvmFlags() {
    }
}
