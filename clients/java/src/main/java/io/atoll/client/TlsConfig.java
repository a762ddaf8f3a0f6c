package io.atoll.client;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettySslContextChannelCredentials;
import io.grpc.netty.shaded.io.netty.handler.ssl.ApplicationProtocolConfig;
import io.grpc.netty.shaded.io.netty.handler.ssl.ApplicationProtocolNames;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.grpc.netty.shaded.io.netty.handler.ssl.JdkSslContext;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS of an {@link AtollClient}'s connections: either PEM files — the CA certificate that signed
 * the members' certificates (none: the JVM's default trust) and, for members that identify clients
 * by certificate, the client's certificate chain and PKCS #8 key — or a ready {@link SSLContext}
 * (its key and trust managers decide). A member that serves TLS refuses a plaintext client with an
 * {@link AuthenticationException}, and a plaintext member a TLS client with a
 * {@link TlsHandshakeException}; either way at once.
 *
 * <pre>{@code
 * new AtollClientConfig()
 *         .addAddress("members.example.com:5701")
 *         .setTlsConfig(TlsConfig.trusting(Path.of("/etc/atoll/ca.crt")))
 *         .setCredentials("app", password);
 * }</pre>
 */
public final class TlsConfig {
    private Path trustCertificates;
    private Path certificateChain;
    private Path privateKey;
    private SSLContext sslContext;

    /** TLS trusting the JVM's default certificate authorities. */
    public TlsConfig() {
    }

    /** TLS trusting the CA certificates of a PEM file (the cluster's CA). */
    public static TlsConfig trusting(Path caCertificates) {
        TlsConfig t = new TlsConfig();
        t.trustCertificates = readable(caCertificates, "caCertificates");
        return t;
    }

    /** TLS as an {@link SSLContext} sets it up (key managers for a client certificate, trust managers). */
    public static TlsConfig of(SSLContext sslContext) {
        TlsConfig t = new TlsConfig();
        t.sslContext = Objects.requireNonNull(sslContext, "sslContext");
        return t;
    }

    /** Presents a client certificate: its chain and PKCS #8 private key, as PEM files. */
    public TlsConfig setClientCertificate(Path certificateChain, Path privateKey) {
        if (sslContext != null) {
            throw new IllegalStateException("an SSLContext sets the client certificate through its key managers");
        }
        this.certificateChain = readable(certificateChain, "certificateChain");
        this.privateKey = readable(privateKey, "privateKey");
        return this;
    }

    private static Path readable(Path p, String what) {
        Objects.requireNonNull(p, what);
        if (!Files.isReadable(p)) {
            throw new IllegalArgumentException(what + " " + p + " is not a readable file");
        }
        return p;
    }

    /** The gRPC channel credentials of this configuration. */
    ChannelCredentials channelCredentials() {
        if (sslContext != null) {
            ApplicationProtocolConfig alpn = new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ApplicationProtocolNames.HTTP_2);
            return NettySslContextChannelCredentials.create(
                    new JdkSslContext(sslContext, true, null, IdentityCipherSuiteFilter.INSTANCE, alpn, ClientAuth.NONE));
        }
        try {
            TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
            if (trustCertificates != null) {
                b.trustManager(trustCertificates.toFile());
            }
            if (certificateChain != null) {
                b.keyManager(certificateChain.toFile(), privateKey.toFile());
            }
            return b.build();
        } catch (IOException e) {
            throw new UncheckedIOException("TLS files: " + e.getMessage(), e);
        }
    }
}
