package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.TransferBackend;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Frames built and checked on workers or on the event loops deliver the same KV: four ranks send
 * runs of several 4 MiB frames each at once, and the decode side's digest equals that of the same
 * pages delivered in process. CI machines of two cores take the loops by default, so both ways are
 * forced here through the system property, whose bad values are refused by name.
 */
class FrameWorkersTest {
    private static final int PAGE_SIZE = 64;
    private static final int RANKS = 4;
    private static final int PAGES = 4 * 100; // 100 pages a rank: three frames of 41 pages each

    @AfterEach
    void clearProperty() {
        System.clearProperty(FrameWorkers.PROPERTY);
    }

    @Test
    void thePropertyChoosesWorkersOrTheLoopAndABadValueIsRefusedByName() {
        System.setProperty(FrameWorkers.PROPERTY, "on");
        assertThat(FrameWorkers.scheduler()).isSameAs(Schedulers.boundedElastic());
        System.setProperty(FrameWorkers.PROPERTY, "off");
        assertThat(FrameWorkers.scheduler()).isSameAs(Schedulers.immediate());
        System.setProperty(FrameWorkers.PROPERTY, "auto");
        assertThat(FrameWorkers.scheduler()).isSameAs(Runtime.getRuntime().availableProcessors() >= FrameWorkers.AUTO_CORES
                ? Schedulers.boundedElastic() : Schedulers.immediate());
        System.setProperty(FrameWorkers.PROPERTY, "maybe");
        assertThatThrownBy(FrameWorkers::scheduler).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kvflow.transfer.workers must be on, off or auto, was \"maybe\"");
        assertThatThrownBy(() -> new TcpTransferBackend("127.0.0.1", 1, PAGE_SIZE, null, 1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("kvflow.transfer.workers must be on, off or auto, was \"maybe\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"on", "off"})
    void ranksSendingManyFramesAtOnceDeliverTheSameKvAsInProcess(String workers) {
        System.setProperty(FrameWorkers.PROPERTY, workers);
        KvLayout layout = new KvLayout(ModelShape.DEEPSEEK_V32.withLayers(2), KvDtype.FP8_E4M3);
        PageStore source = PageStore.onHeap("prefill rank", layout, PAGE_SIZE, PAGES);
        SplittableRandom random = new SplittableRandom(7);
        for (KvComponent component : KvComponent.values()) {
            for (int l = 0; l < source.layers(); l++) {
                byte[] bytes = new byte[PAGES * source.pageBytes(component)];
                random.nextBytes(bytes);
                source.writeBytes(l, component, 0, bytes);
            }
        }
        // page 0 of a receiver is its padding page, so it holds one page more than a request
        DecodeReceiver local = new DecodeReceiver(PAGES + 1, PAGE_SIZE, layout);
        sendAll(new InMemoryTransferBackend(local), source);
        DecodeReceiver remote = new DecodeReceiver(PAGES + 1, PAGE_SIZE, layout);
        try (DecodeServer server = DecodeServer.start(remote, "127.0.0.1", 0);
             TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", server.port(), PAGE_SIZE, layout, RANKS, Duration.ofSeconds(20))) {
            assertThat(PAGES / RANKS).as("pages a rank sends, more than one frame holds")
                    .isGreaterThan(TcpTransferBackend.FRAME_BYTES / (2 * (source.mlaPageBytes() + source.indexPageBytes())));
            sendAll(client, source);
            assertThat(remote.isReady("r")).isTrue();
            assertThat(remote.digest("r", (long) PAGES * PAGE_SIZE)).isEqualTo(local.digest("r", (long) PAGES * PAGE_SIZE));
        }
    }

    /** Request "r" of every page, rank r sending its quarter as one run, all ranks at once. */
    private static void sendAll(TransferBackend backend, PageStore source) {
        long[] decodePages = backend.open("r", PAGES, RANKS).block();
        int share = PAGES / RANKS;
        Flux.range(0, RANKS).flatMap(r -> backend.send("r", r, new PageRun(r * share, decodePages[r * share], share), source)
                .then(backend.complete("r", r)), RANKS).blockLast(Duration.ofSeconds(30));
    }
}
