package io.atoll.client;

import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlRow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java SDK against a secured Go member: TLS (PEM files or an SSLContext), users, a token and a
 * client certificate; a representative set of map operations, listeners and SQL statements allowed
 * and denied by roles; refusals that come at once with typed exceptions. The certificates and hashes
 * are made for the test by the member binary ({@code atoll security ...}).
 */
class SecurityTest {
    static Path dir;
    static GoMember secured;
    static GoMember plain;

    static String atoll(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(GoMember.binary().toString());
        cmd.addAll(List.of(args));
        return GoMember.runCommand(cmd).trim();
    }

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("atoll-security-test");
        atoll("security", "create-ca", "--out", dir.toString());
        atoll("security", "create-cert", "--ca-dir", dir.toString(), "--name", "member", "--hosts", "127.0.0.1,localhost", "--out", dir.toString());
        atoll("security", "create-cert", "--ca-dir", dir.toString(), "--kind", "client", "--name", "reporting", "--out", dir.toString());
        Path pw = dir.resolve("app.password");
        Files.writeString(pw, "app-password-1\n");
        String appHash = atoll("security", "hash-password", "--password-file", pw.toString());
        Files.writeString(dir.resolve("ops.token"), "ops-token-123\n");
        String tokenHash = atoll("security", "hash-token", "--token-file", dir.resolve("ops.token").toString());
        String yaml = "tls: {cert-file: '" + dir.resolve("member.crt") + "', key-file: '" + dir.resolve("member.key")
                + "', ca-file: '" + dir.resolve("ca.crt") + "'}\n"
                + "security:\n"
                + "  users: [{name: app, password-hash: '" + appHash + "', roles: [app]}]\n"
                + "  tokens: [{name: ops, token-hash: '" + tokenHash + "', roles: [admin]}]\n"
                + "  certificates: [{subject: CN=reporting, roles: [reader]}]\n"
                + "  roles:\n"
                + "    app: {maps: {'orders*': [create, put, read, remove], 'events': [listen, put]}, cluster: [sql]}\n"
                + "    reader: {maps: {'*': [read]}}\n"
                + "    admin: {maps: {'*': [all]}, cluster: [sql, admin]}\n";
        secured = GoMember.start("secured", yaml);
        plain = GoMember.start("plain");
    }

    @AfterAll
    static void stop() {
        if (secured != null) {
            secured.stop();
        }
        if (plain != null) {
            plain.stop();
        }
    }

    static AtollClientConfig config(GoMember m) {
        return new AtollClientConfig().addAddress(m.address()).setClusterName(m.clusterName).setConnectTimeout(Duration.ofMinutes(1));
    }

    static TlsConfig pem() {
        return TlsConfig.trusting(dir.resolve("ca.crt"));
    }

    static AtollClientConfig app() {
        return config(secured).setTlsConfig(pem()).setCredentials("app", "app-password-1");
    }

    @Test
    void permittedAndDeniedOperations() {
        try (AtollClient admin = AtollClient.newClient(config(secured).setTlsConfig(pem()).setToken("ops-token-123"));
             AtollClient c = AtollClient.newClient(app())) {
            admin.getMap("secrets").put("k", "hidden");
            try (SqlResult r = admin.sql().execute("CREATE MAPPING secrets TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='varchar')")) {
                assertEquals(0, r.updateCount());
            }

            AtollMap<String, String> orders = c.getMap("orders");
            assertNull(orders.put("1", "one"));
            assertEquals("one", orders.get("1"));
            assertEquals("one", orders.remove("1"));
            orders.set("2", "two");
            try (SqlResult r = c.sql().execute("CREATE MAPPING orders TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='varchar')")) {
                assertEquals(0, r.updateCount());
            }
            try (SqlResult r = c.sql().execute("SELECT this FROM orders")) {
                List<String> got = new ArrayList<>();
                for (SqlRow row : r) {
                    got.add(row.getObject(0));
                }
                assertEquals(List.of("two"), got);
            }
            ListenerRegistration l = c.<String, String>getMap("events").addEntryListener(e -> { }, true);
            l.close();

            AtollMap<String, String> secrets = c.getMap("secrets");
            PermissionDeniedException e = assertThrows(PermissionDeniedException.class, () -> secrets.get("k"));
            assertTrue(e.getMessage().contains("\"read\"") && e.getMessage().contains("secrets"), e.getMessage());
            e = assertThrows(PermissionDeniedException.class, () -> secrets.put("k", "v"));
            assertTrue(e.getMessage().contains("\"put\""), e.getMessage());
            assertThrows(PermissionDeniedException.class, () -> orders.destroy());
            assertThrows(PermissionDeniedException.class, () -> c.getMap("events").get("x"));
            assertThrows(PermissionDeniedException.class, () -> secrets.addEntryListener(ev -> { }, true));
            e = assertThrows(PermissionDeniedException.class, () -> c.sql().execute("SELECT * FROM secrets").close());
            assertTrue(e.getMessage().contains("secrets"), e.getMessage());
            assertThrows(PermissionDeniedException.class, () -> c.sql().execute("DELETE FROM secrets WHERE __key = 'k'").close());
            assertEquals("hidden", admin.<String, String>getMap("secrets").get("k"), "a denied call changed nothing");
        }
    }

    @Test
    void sslContextAndClientCertificate() throws Exception {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(dir.resolve("ca.crt"))) {
            trust.setCertificateEntry("atoll-ca", cf.generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        try (AtollClient c = AtollClient.newClient(config(secured).setTlsConfig(TlsConfig.of(ssl)).setCredentials("app", "app-password-1"))) {
            c.getMap("orders").set("ssl", "context");
            assertEquals("context", c.getMap("orders").get("ssl"));
        }
        // A client certificate names its principal: the reader role.
        TlsConfig withCert = pem().setClientCertificate(dir.resolve("reporting.crt"), dir.resolve("reporting.key"));
        try (AtollClient c = AtollClient.newClient(config(secured).setTlsConfig(withCert))) {
            assertEquals("context", c.getMap("orders").get("ssl"));
            assertThrows(PermissionDeniedException.class, () -> c.getMap("orders").put("x", "y"));
        }
    }

    @Test
    void refusedClients() {
        for (AtollClientConfig cfg : List.of(
                config(secured).setTlsConfig(pem()),
                config(secured).setTlsConfig(pem()).setCredentials("app", "wrong-guess"),
                config(secured).setTlsConfig(pem()).setCredentials("mallory", "app-password-1"),
                config(secured).setTlsConfig(pem()).setToken("guessed-token"))) {
            long start = System.nanoTime();
            AuthenticationException e = assertThrows(AuthenticationException.class, () -> AtollClient.newClient(cfg).close());
            assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 20, "refused at once");
            assertTrue(!e.getMessage().contains("guess"), "no credential in the error: " + e.getMessage());
        }
        assertTrue(!secured.logs().contains("wrong-guess") && !secured.logs().contains("guessed-token"), "no credential in the member's log");
    }

    @Test
    void tlsOnOneSideOnly() {
        long start = System.nanoTime();
        AuthenticationException plaintextClient = assertThrows(AuthenticationException.class,
                () -> AtollClient.newClient(config(secured)).close());
        assertTrue(plaintextClient.getMessage().contains("serves TLS only"), plaintextClient.getMessage());
        TlsHandshakeException tlsClient = assertThrows(TlsHandshakeException.class,
                () -> AtollClient.newClient(config(plain).setTlsConfig(pem())).close());
        assertTrue(tlsClient.getMessage().contains("serves plaintext"), tlsClient.getMessage());
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 20, "neither waits for the connect timeout");
        IllegalArgumentException clear = assertThrows(IllegalArgumentException.class,
                () -> AtollClient.newClient(config(plain).setCredentials("app", "app-password-1")));
        assertTrue(clear.getMessage().contains("only over TLS"));
        try (AtollClient c = AtollClient.newClient(config(plain))) {
            c.getMap("m").put("k", "v");
        }
    }
}
