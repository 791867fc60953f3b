package org.kvflow.transport.tcp;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import org.jspecify.annotations.Nullable;

/**
 * Which TLS implementation the transfer's connections run on: BoringSSL (Netty's native
 * {@code OPENSSL} provider, shipped for Linux x86-64 and aarch64) or the JDK's own. On the H200
 * host one connection moved about 1.3x and four connections about 1.8x as much on BoringSSL
 * (docs/benchmarks.md, D31), so by default it is used wherever its native library loads, and the
 * JDK's elsewhere. The system property {@value #PROPERTY} ({@code auto}, {@code openssl} or
 * {@code jdk}) overrides that, for example where only the JDK's certified provider may be used; it
 * is read when a server starts or a client is built.
 */
final class TlsProvider {
    /** The system property that chooses: {@code auto} (the default), {@code openssl} or {@code jdk}. */
    static final String PROPERTY = "kvflow.transfer.tls";

    private TlsProvider() {}

    /**
     * The provider the property and the platform say.
     *
     * @return {@link SslProvider#OPENSSL} or {@link SslProvider#JDK}
     * @throws IllegalArgumentException if the property has another value, or asks for
     *                                  {@code openssl} where BoringSSL does not load (naming why)
     */
    static SslProvider choose() {
        return choose(System.getProperty(PROPERTY, "auto"), OpenSsl.isAvailable(), OpenSsl.unavailabilityCause());
    }

    /** {@link #choose()} for a given value of the property and a given outcome of loading BoringSSL. */
    static SslProvider choose(String choice, boolean boringSslLoads, @Nullable Throwable whyNot) {
        return switch (choice) {
            case "auto" -> boringSslLoads ? SslProvider.OPENSSL : SslProvider.JDK;
            case "jdk" -> SslProvider.JDK;
            case "openssl" -> {
                if (!boringSslLoads) {
                    throw new IllegalArgumentException(PROPERTY + "=openssl, but BoringSSL does not load here: " + whyNot);
                }
                yield SslProvider.OPENSSL;
            }
            default -> throw new IllegalArgumentException(PROPERTY + " must be auto, openssl or jdk, was \"" + choice + "\"");
        };
    }

    /**
     * The provider a context was built on, in the property's words.
     *
     * @param context a context {@link TransferTls} built
     * @return {@code jdk} or {@code openssl}
     */
    static String nameOf(SslContext context) {
        return context instanceof JdkSslContext ? "jdk" : "openssl";
    }
}
