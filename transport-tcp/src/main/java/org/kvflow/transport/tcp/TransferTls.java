package org.kvflow.transport.tcp;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * Mutual TLS for the PD transport: this side's certificate chain and private key (PEM, the key in
 * unencrypted PKCS#8) and the CA that signs the other side's certificates. The decode server
 * requires a client certificate signed by that CA, and the prefill client accepts only a server
 * certificate signed by it. The connections run on BoringSSL where its native library loads, else
 * on the JDK's TLS; the system property {@code kvflow.transfer.tls} ({@code auto}, {@code openssl},
 * {@code jdk}) chooses otherwise.
 */
public record TransferTls(Path certificate, Path privateKey, Path trustedCa) {
    public TransferTls {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(privateKey, "privateKey");
        Objects.requireNonNull(trustedCa, "trustedCa");
    }

    /**
     * The name this side's certificate gives it: its subject's common name (CN), or the whole
     * subject where it has none. A decode server under mutual TLS takes a prefill client's request
     * ids only when they begin with this name and a slash; the tcp backend adds the prefix itself,
     * so a request {@code req-7} is {@code <name>/req-7} on the decode side.
     *
     * @throws IllegalArgumentException naming the file when it holds no readable certificate
     */
    public String certificateName() {
        return CertificateNames.ofPem(certificate);
    }

    /** @throws IllegalArgumentException naming the files when they cannot be read as a certificate, a key and a CA, or the provider asked for */
    SslContext serverContext() {
        return build(() -> SslContextBuilder.forServer(certificate.toFile(), privateKey.toFile()).trustManager(trustedCa.toFile())
                .clientAuth(ClientAuth.REQUIRE));
    }

    /** @throws IllegalArgumentException naming the files when they cannot be read as a certificate, a key and a CA, or the provider asked for */
    SslContext clientContext() {
        return build(() -> SslContextBuilder.forClient().keyManager(certificate.toFile(), privateKey.toFile()).trustManager(trustedCa.toFile()));
    }

    private SslContext build(Supplier<SslContextBuilder> builder) {
        SslProvider provider = TlsProvider.choose(); // refused on its own, before the files are read
        try {
            return builder.get().sslProvider(provider).build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("TLS with certificate " + certificate + ", key " + privateKey + " and CA " + trustedCa
                    + " cannot be set up: " + e.getMessage(), e);
        }
    }
}
