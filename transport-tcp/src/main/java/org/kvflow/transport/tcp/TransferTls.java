package org.kvflow.transport.tcp;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * Mutual TLS for the PD transport: this side's certificate chain and private key (PEM, the key in
 * unencrypted PKCS#8) and the CA that signs the other side's certificates. The decode server
 * requires a client certificate signed by that CA, and the prefill client accepts only a server
 * certificate signed by it.
 */
public record TransferTls(Path certificate, Path privateKey, Path trustedCa) {
    public TransferTls {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(privateKey, "privateKey");
        Objects.requireNonNull(trustedCa, "trustedCa");
    }

    /** @throws IllegalArgumentException naming the files when they cannot be read as a certificate, a key and a CA */
    SslContext serverContext() {
        return build(() -> SslContextBuilder.forServer(certificate.toFile(), privateKey.toFile()).trustManager(trustedCa.toFile())
                .clientAuth(ClientAuth.REQUIRE));
    }

    /** @throws IllegalArgumentException naming the files when they cannot be read as a certificate, a key and a CA */
    SslContext clientContext() {
        return build(() -> SslContextBuilder.forClient().keyManager(certificate.toFile(), privateKey.toFile()).trustManager(trustedCa.toFile()));
    }

    private SslContext build(Supplier<SslContextBuilder> builder) {
        try {
            return builder.get().build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("TLS with certificate " + certificate + ", key " + privateKey + " and CA " + trustedCa
                    + " cannot be set up: " + e.getMessage(), e);
        }
    }
}
