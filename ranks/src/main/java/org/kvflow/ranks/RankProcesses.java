package org.kvflow.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.ChildJvm;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.StoreHandles;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import org.kvflow.pages.MissingCapabilityException;

/**
 * The coordinator's side of CP ranks as processes: starts one {@link RankProcessMain} per rank
 * (this JVM's runtime and class path), connects to each over reactor-netty ({@link RankChannel}),
 * and, where the ranks' memory exports its buffers and {@code memory} opens them (CUDA IPC on one
 * machine), opens every rank's pool in place as a {@link PageStore} of {@code memory}: a full view
 * is then gathered from the peers' pages by the same copy kernel as from pools of this process.
 * Where they cannot be opened in place, each pool is opened as a store of staged copies over the
 * rank's control connection instead ({@link #unmappedReason}, {@link #stagedBytes}): slower, and
 * used by every stage the same way.
 *
 * <p>Faults: a rank whose process exits or whose connection closes is lost at once; its opened
 * pool is closed (under the same lock gathers hold, so never while a copy reads it) and never read
 * again; every later use of that rank, here or by a stage still holding its store, fails with
 * {@link RankLostException} naming it, and the other ranks keep serving. {@link #restart} brings a lost rank back with a fresh, empty pool.
 * Thread-safe.
 */
public final class RankProcesses implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Starting a rank blocks (a process's first line, a connection, a reply): on virtual threads, not the common pool. */
    private static final java.util.concurrent.Executor BLOCKING = task -> Thread.ofVirtual().name("kvflow-rank-start").start(task);

    private final RankSpec spec;
    private final PageMemory memory;
    /** How long a call may wait for its reply. */
    private final Duration timeout;
    /** The secret every rank of these is started with and every request carries (random, never written anywhere else). */
    private final String token = java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16));
    /** How long a rank process may take to listen after it is started. */
    private final Duration startTimeout;
    private final Rank[] ranks;

    /** One rank's process, control connection, opened pool (staged where {@code unmapped} says why) and the handles it exported. */
    private record Rank(Process process, RankChannel channel, PageStore pool, @Nullable String unmapped, @Nullable StoreHandles handles,
                        String memory) {}

    private final @Nullable RankLostException[] lost;
    private boolean closed;
    private final StagedRankMemory staged = new StagedRankMemory((rank, request, bytes) -> await(call(rank, request, bytes)));
    private final List<java.util.function.Consumer<RankLostException>> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<java.util.function.BiConsumer<Integer, PageStore>> restartListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    private RankProcesses(RankSpec spec, int count, PageMemory memory, Duration startTimeout, Duration timeout) {
        this.spec = spec;
        this.memory = memory;
        this.timeout = timeout;
        this.startTimeout = startTimeout;
        this.ranks = new Rank[count];
        this.lost = new RankLostException[count];
    }

    /**
     * Starts {@code count} rank processes of {@code spec} (its rank field is replaced by each
     * rank's) and opens their pools in {@code memory} where both sides can.
     *
     * @throws RankStartException naming the first rank that did not start (every started one is stopped)
     */
    public static RankProcesses start(RankSpec spec, int count, PageMemory memory, Duration timeout) {
        return start(spec, count, memory, timeout, timeout);
    }

    /**
     * {@link #start(RankSpec, int, PageMemory, Duration)} with its own limit for a process to start
     * (a JVM takes seconds) and for a call's reply (milliseconds when the rank is well).
     *
     * @param startTimeout how long a rank process may take to listen
     * @param callTimeout  how long a call may wait for its reply before the rank is lost
     * @throws RankStartException naming the first rank that did not start (every started one is stopped)
     */
    public static RankProcesses start(RankSpec spec, int count, PageMemory memory, Duration startTimeout, Duration callTimeout) {
        if (count < 1) {
            throw new IllegalArgumentException("rank processes: count " + count + " must be >= 1");
        }
        RankProcesses all = new RankProcesses(spec, count, memory, startTimeout, callTimeout);
        List<CompletableFuture<Rank>> starting = new ArrayList<>();
        try {
            for (int r = 0; r < count; r++) {
                int rank = r;
                starting.add(CompletableFuture.supplyAsync(() -> all.launch(rank), BLOCKING));
            }
            for (int r = 0; r < count; r++) {
                all.install(r, join(r, starting.get(r)));
            }
            return all;
        } catch (RuntimeException e) {
            all.close();
            for (CompletableFuture<Rank> f : starting) { // ranks that started but were never installed: stop them too
                f.thenAccept(started -> {
                    started.pool().close();
                    started.channel().close();
                    started.process().destroyForcibly();
                });
            }
            throw e;
        }
    }

    private static Rank join(int rank, CompletableFuture<Rank> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new RankStartException(rank, String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RankStartException(rank, "interrupted");
        }
    }

    private synchronized void install(int rank, Rank started) {
        ranks[rank] = started;
        lost[rank] = null;
        started.process().onExit().thenAccept(p -> lose(rank, started, "its process exited with status " + p.exitValue()));
    }

    /** One rank: its process up and listening, its connection, its hello, its pool opened. */
    private Rank launch(int rank) {
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(ChildJvm.command("1g", RankProcessMain.class, spec.forRank(rank).arguments()))
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            builder.environment().put(RankProcessMain.TOKEN_VARIABLE, token);
            process = builder.start();
        } catch (IOException e) {
            throw new RankStartException(rank, "the process could not be started (" + e.getMessage() + ")");
        }
        try {
            String line = firstLine(rank, process);
            String listening = "RANK " + rank + " LISTENING ";
            if (!line.startsWith(listening)) {
                throw new RankStartException(rank, line.startsWith("RANK " + rank + " FAILED ") ? line.substring(("RANK " + rank + " FAILED ").length())
                        : "it said '" + line + "'");
            }
            int port = Integer.parseInt(line.substring(listening.length()).trim());
            RankChannel channel = RankChannel.connect(rank, port, token, timeout, why -> loseByChannel(rank, why)).block(startTimeout);
            JsonNode hello = java.util.Objects.requireNonNull(channel).call(JSON.createObjectNode().put("op", "hello")).block();
            return open(rank, process, channel, java.util.Objects.requireNonNull(hello));
        } catch (RuntimeException e) {
            process.destroyForcibly();
            throw e instanceof RankStartException ? e : new RankStartException(rank, e.getMessage());
        }
    }

    private Rank open(int rank, Process process, RankChannel channel, JsonNode hello) {
        String label = "rank " + rank + " (process " + process.pid() + ")";
        int pageSize = hello.path("pageSize").asInt();
        int pages = hello.path("pages").asInt();
        if (!hello.path("shared").asBoolean()) {
            return stagedRank(rank, process, channel, label, "rank " + rank + " exports no handles: " + hello.path("why").asText(), null, hello);
        }
        List<byte[]> mla = new ArrayList<>();
        List<byte[]> index = new ArrayList<>();
        hello.path("mla").forEach(h -> mla.add(Base64.getDecoder().decode(h.asText())));
        hello.path("index").forEach(h -> index.add(Base64.getDecoder().decode(h.asText())));
        StoreHandles handles = new StoreHandles(pageSize, pages, mla, index);
        try {
            return new Rank(process, channel, PageStore.open(memory, label, spec.layout(), handles), null, handles, hello.path("memory").asText());
        } catch (MissingCapabilityException e) {
            return stagedRank(rank, process, channel, label, e.getMessage(), handles, hello);
        }
    }

    /** Rank {@code rank}'s pool opened as staged copies over its connection, for {@code why}. */
    private Rank stagedRank(int rank, Process process, RankChannel channel, String label, String why, @Nullable StoreHandles exported, JsonNode hello) {
        StoreHandles handles = StagedRankMemory.handles(rank, spec.layout().shape().layers(), spec.pageSize(), spec.pages());
        PageStore pool = PageStore.open(staged, label + ", staged", spec.layout(), handles);
        return new Rank(process, channel, pool, why, exported, hello.path("memory").asText());
    }

    private static <T> T await(Mono<T> reply) {
        try {
            return reply.toFuture().join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private String firstLine(int rank, Process process) {
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
            } catch (IOException e) {
                return null;
            }
        }, BLOCKING);
        try {
            String first = line.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
            if (first == null) {
                throw new RankStartException(rank, "its process exited before it listened");
            }
            return first;
        } catch (TimeoutException e) {
            throw new RankStartException(rank, "it did not listen within " + startTimeout);
        } catch (ExecutionException | InterruptedException e) {
            throw new RankStartException(rank, String.valueOf(e));
        }
    }

    /** How many ranks. */
    public int ranks() {
        return ranks.length;
    }

    /** Whether every rank's pool is opened in place in this process's memory (none by staged copies). */
    public synchronized boolean mapped() {
        for (Rank r : ranks) {
            if (r.unmapped() != null) {
                return false;
            }
        }
        return true;
    }

    /** Why the pools are not opened in place (the first rank's reason); empty when they are. */
    public synchronized String unmappedReason() {
        for (Rank r : ranks) {
            if (r.unmapped() != null) {
                return r.unmapped();
            }
        }
        return "";
    }

    /** The memory rank {@code rank}'s pool lives in, as the rank resolved it ({@code cuda:3} for {@code cuda:*}). */
    public synchronized String memoryOf(int rank) {
        return ranks[rank].memory();
    }

    /** Rank {@code rank}'s process id. */
    public synchronized long pid(int rank) {
        return ranks[rank].process().pid();
    }

    /**
     * Gathers a view from the ranks' pools, as {@link PageStore#gatherFrom} does from pools of this
     * process ({@code sources} indexes ranks): in place where they are opened so, by staged copies
     * over the control connections where not ({@link #unmappedReason}, counted in {@link #stagedBytes()}).
     *
     * @throws RankLostException naming the first lost rank among {@code sources} (nothing is copied)
     */
    public synchronized void gather(PageStore view, int[] sources, List<long[]> srcPages, List<long[]> dstPages) {
        List<PageStore> pools = new ArrayList<>();
        for (int r : sources) {
            pools.add(pool(r));
        }
        view.gatherFrom(pools, srcPages, dstPages);
    }

    /** Page bytes moved by staged copies over the control connections (pools not opened in place), by every use; 0 when all are. */
    public long stagedBytes() {
        return staged.hostTraffic().total();
    }

    /** The staged copies' bytes by the pipeline stage that moved them. */
    public java.util.Map<String, Long> stagedBytesByStage() {
        return staged.hostTraffic().byStage();
    }

    /**
     * Every rank's pool, rank by rank (opened in place, or by staged copies), for the stages to use
     * as they use pools of their own; a lost rank's store is closed, so a later use fails instead of reading it.
     *
     * @throws RankLostException naming the first lost rank
     */
    public synchronized List<PageStore> pools() {
        List<PageStore> all = new ArrayList<>();
        for (int r = 0; r < ranks.length; r++) {
            all.add(pool(r));
        }
        return all;
    }

    /**
     * Every rank's pool mapped side by side in one virtual view of {@code memory} (the ranks need
     * shareable pools, {@link RankSpec#shared()}): rank {@code r}'s page {@code k} is page
     * {@code r·(pages() ÷ ranks()) + k} of the view, read in place with nothing copied. The caller
     * closes it; it must not outlive the ranks.
     *
     * @throws RankLostException naming the first lost rank
     * @throws org.kvflow.pages.MissingCapabilityException if the memory cannot map the ranks' pools side by side
     */
    public synchronized PageStore openView(String label) {
        List<StoreHandles> all = new ArrayList<>();
        for (int r = 0; r < ranks.length; r++) {
            requireLive(r);
            all.add(java.util.Objects.requireNonNull(ranks[r].handles(), () -> ranks[0].unmapped()));
        }
        return PageStore.openSideBySide(memory, label, spec.layout(), all);
    }

    /** Rank {@code rank}'s pool; valid until the rank is lost or this closes. */
    private PageStore pool(int rank) {
        requireLive(rank);
        return ranks[rank].pool();
    }

    /** The CRC32C of a page of rank {@code rank}'s pool, computed by the rank. */
    public Mono<Long> digest(int rank, int layer, KvComponent component, long page) {
        return call(rank, JSON.createObjectNode().put("op", "digest").put("layer", layer).put("component", component.name()).put("page", page))
                .map(reply -> reply.path("crc").asLong());
    }

    private Mono<JsonNode> call(int rank, com.fasterxml.jackson.databind.node.ObjectNode request) {
        return call(rank, request, null).map(RankChannel.Reply::json);
    }

    private Mono<RankChannel.Reply> call(int rank, com.fasterxml.jackson.databind.node.ObjectNode request, byte @Nullable [] bytes) {
        return Mono.defer(() -> {
            RankChannel channel;
            synchronized (this) {
                requireLive(rank);
                channel = ranks[rank].channel();
            }
            return channel.call(request, bytes);
        });
    }

    /** @throws RankLostException if rank {@code rank} is lost (the caller holds the lock) */
    private void requireLive(int rank) {
        if (lost[rank] != null) {
            throw lost[rank];
        }
    }

    /**
     * Calls {@code listener} with each loss as it happens (under the lock gathers hold), e.g. to
     * close a virtual view that maps the lost rank's pages.
     *
     * @param listener what to tell
     */
    public void onLoss(java.util.function.Consumer<RankLostException> listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** The loss of rank {@code rank}, if it is lost. */
    public synchronized java.util.Optional<RankLostException> lost(int rank) {
        return java.util.Optional.ofNullable(lost[rank]);
    }

    /**
     * Calls {@code listener} with the rank and its fresh pool each time a lost rank is restarted.
     *
     * @param listener what to tell
     */
    public void onRestart(java.util.function.BiConsumer<Integer, PageStore> listener) {
        restartListeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Starts a lost rank again with a fresh pool (its pages before the loss are gone: the requests
     * that had pages there were failed when it was lost) and tells the {@link #onRestart} listeners.
     *
     * @throws IllegalStateException if the rank is not lost
     * @throws RankStartException if it does not start
     */
    public void restart(int rank) {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the rank processes are closed");
            }
            if (lost[rank] == null) {
                throw new IllegalStateException("rank " + rank + " is not lost");
            }
        }
        Rank fresh = launch(rank);
        synchronized (this) {
            if (closed) { // closed while it started: it is not installed, and nothing of it stays
                fresh.pool().close();
                fresh.channel().close();
                fresh.process().destroyForcibly();
                throw new IllegalStateException("the rank processes closed while rank " + rank + " restarted");
            }
            install(rank, fresh);
        }
        restartListeners.forEach(l -> l.accept(rank, fresh.pool()));
    }

    private void loseByChannel(int rank, String why) {
        Rank r;
        synchronized (this) {
            r = ranks[rank];
        }
        if (r != null) {
            lose(rank, r, why);
        }
    }

    /** Marks {@code rank} lost (once per started process) and closes its opened pool, never while a gather holds the lock. */
    private synchronized void lose(int rank, Rank which, String why) {
        if (ranks[rank] != which || lost[rank] != null) {
            return;
        }
        RankLostException loss = new RankLostException(rank, why);
        lost[rank] = loss;
        which.pool().closeWith(() -> new RankLostException(rank, why)); // a stage still holding the store is told which rank went
        listeners.forEach(l -> l.accept(loss));
        which.channel().close();
        which.process().destroyForcibly();
    }

    /** Asks every live rank to exit, closes the opened pools and the connections, and ends the processes. */
    @Override
    public synchronized void close() {
        closed = true;
        for (int r = 0; r < ranks.length; r++) {
            Rank rank = ranks[r];
            if (rank == null) {
                continue;
            }
            if (lost[r] == null) {
                lost[r] = new RankLostException(r, "the coordinator closed");
                rank.pool().close();
                try {
                    rank.channel().call(JSON.createObjectNode().put("op", "exit")).block(Duration.ofSeconds(2));
                } catch (RuntimeException e) {
                    // it is ended below either way
                }
                rank.channel().close();
            }
            rank.process().destroyForcibly();
        }
    }
}
