package org.kvflow.ranks;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;
import reactor.netty.DisposableServer;

/**
 * One CP rank as a process: allocates the rank's pool in its page memory (for {@code cuda:*}, on
 * GPU {@code rank mod n}: {@link PageMemories#forRank}), serves the control
 * protocol ({@link RankServer}) on a free loopback port, prints {@code RANK <r> LISTENING <port>}
 * on its first line, and exits on {@code exit}, or when its standard input closes (the
 * coordinator is gone), freeing the pool. Arguments: {@link RankSpec#arguments()}. A pool that
 * does not fit prints {@code RANK <r> FAILED <reason>} and exits with status 2.
 */
public final class RankProcessMain {
    /** The environment variable the coordinator hands the rank its token in (not an argument: other users can list those). */
    static final String TOKEN_VARIABLE = "KVFLOW_RANK_TOKEN";

    private RankProcessMain() {}

    public static void main(String[] args) throws InterruptedException {
        RankSpec spec = RankSpec.parse(Arrays.asList(args));
        CountDownLatch done = new CountDownLatch(1);
        PageMemory memory;
        PageStore pool;
        String selector;
        try {
            selector = PageMemories.forRank(spec.memory(), spec.rank());
            memory = PageMemories.open(selector);
            String label = "pool"; // every reply and the FAILED line already name the rank
            pool = spec.shareable() ? PageStore.allocateShared(memory, label, spec.layout(), spec.pageSize(), spec.pages())
                    : PageStore.allocate(memory, label, spec.layout(), spec.pageSize(), spec.pages());
        } catch (RuntimeException e) {
            System.out.println("RANK " + spec.rank() + " FAILED " + e.getMessage());
            System.exit(2);
            return;
        }
        String token = System.getenv(TOKEN_VARIABLE);
        if (token == null || token.isEmpty()) {
            System.out.println("RANK " + spec.rank() + " FAILED no " + TOKEN_VARIABLE + " in the environment: a rank is started by its coordinator");
            System.exit(2);
            return;
        }
        RankServer server = new RankServer(spec, selector, pool, token, done::countDown);
        DisposableServer listening = server.listen();
        System.out.println("RANK " + spec.rank() + " LISTENING " + listening.port());
        System.out.flush();
        Thread watch = Thread.ofPlatform().daemon().start(() -> {
            try (InputStream in = System.in) {
                while (in.read() >= 0) {
                    // the coordinator writes nothing; end of input means it is gone
                }
            } catch (IOException e) {
                // same as end of input
            }
            done.countDown();
        });
        done.await();
        Thread.sleep(100); // lets the exit reply go out
        listening.disposeNow();
        pool.close();
        memory.close();
        watch.interrupt();
        System.exit(0);
    }
}
