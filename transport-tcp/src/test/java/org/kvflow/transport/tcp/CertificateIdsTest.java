package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.model.KvLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.PageRun;

/**
 * Under mutual TLS a request id belongs to the certificate that may open it: two tenants use the
 * same ids without meeting, and no tenant can open (squat), join or digest another's (certificates in
 * src/test/resources/tls-tenants, one CA, CNs tenant-a and tenant-b).
 */
class CertificateIdsTest {
    private static final KvLayout LAYOUT = TcpFixtures.LAYOUT;
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    @TempDir
    static Path certificates;

    private static TransferTls side(String name) {
        try {
            return TcpFixtures.tenantTls(certificates, name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertRefused(Frames.Reader reply, String code, String message) {
        assertThat(reply).as("a reply").isNotNull();
        assertThat(reply.type()).isEqualTo(Frames.REJECT);
        assertThat(reply.skipType().str()).isEqualTo(code);
        assertThat(reply.str()).isEqualTo(message);
    }

    @Test
    void aCertificateNamesItsHolderByItsCommonName() {
        assertThat(side("tenant-a").certificateName()).isEqualTo("tenant-a");
        assertThat(side("server").certificateName()).isEqualTo("127.0.0.1");
    }

    @Test
    void aFileThatHoldsNoCertificateIsRefusedNamingIt(@TempDir Path dir) throws Exception {
        Path junk = Files.writeString(dir.resolve("junk.crt"), "not a certificate");
        TransferTls tenantA = side("tenant-a");
        TransferTls tls = new TransferTls(junk, tenantA.privateKey(), tenantA.trustedCa());
        assertThatThrownBy(tls::certificateName).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("certificate " + junk + " cannot be read: ");
    }

    @Test
    void twoTenantsUseTheSameIdsWithoutMeeting() {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        PageStore a = PageStore.onHeap("tenant a", LAYOUT, 16, 2);
        PageStore b = PageStore.onHeap("tenant b", LAYOUT, 16, 2);
        a.writeBytes(0, KvComponent.MLA, 3, new byte[] {11});
        b.writeBytes(0, KvComponent.MLA, 3, new byte[] {22});
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, side("server"));
             TcpTransferBackend tenantA = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT, side("tenant-a"));
             TcpTransferBackend tenantB = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT, side("tenant-b"))) {
            assertThat(tenantA.wire("req-1")).isEqualTo("tenant-a/req-1");
            for (var t : new Object[][] {{tenantA, a}, {tenantB, b}}) {
                TcpTransferBackend backend = (TcpTransferBackend) t[0];
                long[] d = backend.open("req-1", 1, 1).block();
                backend.send("req-1", 0, new PageRun(0, d[0], 1), (PageStore) t[1]).block();
                backend.complete("req-1", 0).block();
                assertThat(backend.digest("req-1", 16).block().ready()).isTrue();
            }
            assertThat(receiver.isReady("tenant-a/req-1")).isTrue();
            assertThat(receiver.isReady("tenant-b/req-1")).isTrue();
            assertThat(receiver.pageCount("req-1")).as("no unprefixed id").isZero();
            for (String tenant : new String[] {"tenant-a", "tenant-b"}) {
                long page = receiver.pages(tenant + "/req-1")[0];
                assertThat(receiver.store().readBytes(0, KvComponent.MLA, page * receiver.store().mlaPageBytes() + 3, 1)[0])
                        .as("%s's own bytes", tenant).isEqualTo(tenant.equals("tenant-a") ? (byte) 11 : (byte) 22);
            }
        }
    }

    @Test
    void noTenantOpensOrJoinsAnothersRequests() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, side("server"));
             RawPeer tenantA = new RawPeer(server.port(), side("tenant-a"));
             RawPeer tenantB = new RawPeer(server.port(), side("tenant-b"))) {
            byte[] clientId = new byte[Frames.CLIENT_ID_BYTES];
            clientId[0] = 7;
            assertThat(tenantA.hello(LAYOUT, 16, 1, clientId).type()).isEqualTo(Frames.HELLO_OK);
            assertThat(tenantB.hello(LAYOUT, 16, 1, clientId).type()).as("the same client id under another certificate").isEqualTo(Frames.HELLO_OK);
            assertRefused(tenantB.exchange(new Frames.Writer(Frames.OPEN, 32).str("tenant-a/req-2").i32(1).i32(1).bytes()), "E-PD-OWNER",
                    "request tenant-a/req-2 is not certificate tenant-b's: under mutual TLS its ids begin with 'tenant-b/'");
            assertRefused(tenantB.exchange(new Frames.Writer(Frames.OPEN, 32).str("req-2").i32(1).i32(1).bytes()), "E-PD-OWNER",
                    "request req-2 is not certificate tenant-b's: under mutual TLS its ids begin with 'tenant-b/'");
            assertThat(receiver.pageCount("tenant-a/req-2")).as("nothing squatted").isZero();
            assertThat(tenantA.open("tenant-a/req-2", 1, 1)).hasSize(1);
            assertRefused(tenantB.exchange(new Frames.Writer(Frames.ABORT, 16).str("tenant-a/req-2").bytes()), "E-PD-OWNER",
                    "request tenant-a/req-2 was opened by another client");
            assertRefused(tenantB.exchange(new Frames.Writer(Frames.COMPLETE, 16).str("tenant-a/req-2").i32(0).bytes()), "E-PD-OWNER",
                    "request tenant-a/req-2 was opened by another client");
            assertRefused(tenantB.exchange(new Frames.Writer(Frames.DIGEST, 16).str("tenant-a/req-2").i64(16).bytes()), "E-PD-OWNER",
                    "request tenant-a/req-2 is not certificate tenant-b's: under mutual TLS DIGEST reads only its own requests");
            assertThat(tenantA.exchange(new Frames.Writer(Frames.DIGEST, 16).str("tenant-a/req-2").i64(16).bytes()).type())
                    .as("its own request").isEqualTo(Frames.DIGESTED);
            assertThat(receiver.pageCount("tenant-a/req-2")).isEqualTo(1);
        }
    }
}
