package org.kvflow.transport.tcp;

import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;

/**
 * Runs a {@link DecodeServer} as its own process. Arguments: {@code port pages pageSize layers
 * latent rope index dtype [parentPid]}; {@code layers 0} tracks pages only. Prints
 * {@code LISTENING <port>} when ready and serves until killed, or, given a parent pid, until that
 * process exits (so a decode server started by a prefill process dies with it, even after
 * {@code kill -9}).
 */
public final class DecodeServerMain {
    private DecodeServerMain() {}

    public static void main(String[] args) {
        serve(args, null);
    }

    /**
     * An engine's decode side as a decode process makes it: the memory its pool must lie in, and
     * the landing over that pool (closed after the server when it is {@link AutoCloseable}).
     */
    public interface LandingMaker {
        /** {@return the memory the decode pool is allocated in} */
        PageMemory memory();

        /** {@return the landing that takes page bytes into {@code pool}} */
        PageLanding land(PageStore pool);
    }

    /**
     * Serves as {@link #main} does; with {@code landings}, the pool lies in their memory and page
     * bytes may also arrive by their engine.
     *
     * @param args     as {@link #main} takes them
     * @param landings the engine's decode side, or null for PAGES frames only
     */
    public static void serve(String[] args, @Nullable LandingMaker landings) {
        int port = Integer.parseInt(args[0]);
        int pages = Integer.parseInt(args[1]);
        int pageSize = Integer.parseInt(args[2]);
        int layers = Integer.parseInt(args[3]);
        @Nullable KvLayout layout = layout(layers, Integer.parseInt(args[4]), Integer.parseInt(args[5]), Integer.parseInt(args[6]),
                KvDtype.valueOf(args[7]));
        if (landings != null && layout == null) {
            throw new IllegalArgumentException("an engine lands page bytes: a decode pool of 0 layers has none");
        }
        try (PageMemory memory = landings == null ? null : landings.memory()) {
            DecodeReceiver receiver = memory == null ? new DecodeReceiver(pages, pageSize, layout) : new DecodeReceiver(pages, pageSize, layout, memory);
            PageLanding landing = landings == null ? null : landings.land(receiver.store());
            try (DecodeServer server = landing == null ? DecodeServer.start(receiver, "127.0.0.1", port)
                    : DecodeServer.start(receiver, "127.0.0.1", port, DecodeServer.Limits.DEFAULT, null, landing)) {
                System.out.println("LISTENING " + server.port());
                System.out.flush();
                if (args.length > 8) {
                    ParentWatch.exitOf(Long.parseLong(args[8])).join();
                } else {
                    server.awaitClose();
                }
            } finally {
                if (landing instanceof AutoCloseable closeable) {
                    closeable.close();
                }
            }
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException("closing the decode server's engine", e);
        }
    }

    /** The row layout of a decode pool of {@code layers} layers, or null for {@code layers 0} (pages only). */
    public static @Nullable KvLayout layout(int layers, int latent, int rope, int index, KvDtype dtype) {
        return layers == 0 ? null : new KvLayout(new ModelShape("decode", ModelKind.TOY_MLA, layers, latent, rope, index), dtype);
    }

    /** The arguments that start a server matching {@code layout} (null: pages only) that exits with the calling process. */
    public static String[] arguments(int port, int pages, int pageSize, @Nullable KvLayout layout) {
        String parent = Long.toString(ProcessHandle.current().pid());
        if (layout == null) {
            return new String[] {Integer.toString(port), Integer.toString(pages), Integer.toString(pageSize), "0", "0", "0", "0", "BF16", parent};
        }
        ModelShape s = layout.shape();
        return new String[] {Integer.toString(port), Integer.toString(pages), Integer.toString(pageSize), Integer.toString(s.layers()),
                Integer.toString(s.latentDim()), Integer.toString(s.ropeDim()), Integer.toString(s.indexDim()), layout.dtype().name(), parent};
    }
}
