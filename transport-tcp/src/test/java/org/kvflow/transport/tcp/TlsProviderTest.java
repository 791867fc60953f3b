package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transfer's TLS provider: BoringSSL by default where it loads (and it must load on the Linux
 * platforms whose native library the build ships), the JDK's on request, and a bad value of the
 * property refused by name before any certificate file is read.
 */
class TlsProviderTest {
    @AfterEach
    void clearProperty() {
        System.clearProperty(TlsProvider.PROPERTY);
    }

    @Test
    void thePropertyChoosesTheProviderAndABadValueIsRefusedByName() {
        System.setProperty(TlsProvider.PROPERTY, "jdk");
        assertThat(TlsProvider.choose()).isEqualTo(SslProvider.JDK);
        System.setProperty(TlsProvider.PROPERTY, "auto");
        assertThat(TlsProvider.choose()).isEqualTo(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK);
        System.clearProperty(TlsProvider.PROPERTY);
        assertThat(TlsProvider.choose()).as("auto when unset").isEqualTo(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK);
        System.setProperty(TlsProvider.PROPERTY, "boringssl");
        assertThatThrownBy(TlsProvider::choose).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kvflow.transfer.tls must be auto, openssl or jdk, was \"boringssl\"");
        TransferTls missing = new TransferTls(Path.of("/nonexistent/a.crt"), Path.of("/nonexistent/a.key"), Path.of("/nonexistent/ca.crt"));
        assertThatThrownBy(missing::serverContext).as("the provider is refused before the files are read")
                .isInstanceOf(IllegalArgumentException.class).hasMessage("kvflow.transfer.tls must be auto, openssl or jdk, was \"boringssl\"");
    }

    @Test
    void openSslIsChosenWhereItLoadsAndRefusedByCauseWhereItDoesNot() {
        assertThat(TlsProvider.choose("openssl", true, null)).isEqualTo(SslProvider.OPENSSL);
        UnsatisfiedLinkError cause = new UnsatisfiedLinkError("no netty_tcnative_linux_x86_64 in java.library.path");
        assertThatThrownBy(() -> TlsProvider.choose("openssl", false, cause)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kvflow.transfer.tls=openssl, but BoringSSL does not load here: java.lang.UnsatisfiedLinkError: "
                        + "no netty_tcnative_linux_x86_64 in java.library.path");
        assertThat(TlsProvider.choose("auto", false, cause)).as("auto falls back to the JDK's TLS").isEqualTo(SslProvider.JDK);
        assertThat(TlsProvider.choose("auto", true, null)).isEqualTo(SslProvider.OPENSSL);
        System.setProperty(TlsProvider.PROPERTY, "openssl"); // and the property reaches it, on this platform
        if (OpenSsl.isAvailable()) {
            assertThat(TlsProvider.choose()).isEqualTo(SslProvider.OPENSSL);
        } else {
            assertThatThrownBy(TlsProvider::choose).hasMessageStartingWith("kvflow.transfer.tls=openssl, but BoringSSL does not load here: ");
        }
    }

    @Test
    void boringSslLoadsOnTheLinuxPlatformsTheBuildShipsItFor() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch");
        assumeTrue(os.contains("linux") && (arch.equals("amd64") || arch.equals("aarch64")),
                "BoringSSL's native library is shipped for Linux x86-64 and aarch64 only; this is " + os + " " + arch);
        assertThat(OpenSsl.isAvailable()).as("BoringSSL loads: %s", OpenSsl.unavailabilityCause()).isTrue();
    }
}
