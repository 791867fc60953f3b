package org.kvflow.operators.backup;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalFullException;
import org.kvflow.journal.JournalIoException;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.pages.KvComponent;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.stage.BatchStage;
import org.kvflow.operators.stage.StageRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The HiCache backup stage (contract §11.2, §11.3): when a request finishes its prefill, its full
 * pages are journaled, each pool for all layers, read from the owner rank's pages (under shared KV
 * the host copy is the whole logical page, as a replicated rank would back it up).
 * {@code write_through} backs up a page when it is first computed (hit count 1);
 * {@code write_through_selective} when its hit count reaches 2 (a later request reused it as a
 * prefix). Journal calls block, so they run on {@code boundedElastic}, one batch at a time, in
 * order. A page whose token row fails validation fails its request; a journal that cannot take
 * more (full, unwritable) is logged and counted, and the prefill goes on: the host cache is a cache.
 */
public final class HiCacheBackupOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>>, AutoCloseable {
    /** The stage's operator name, under which its host traffic is counted. */
    public static final String STAGE = "kvflow.backup";
    private static final Logger LOG = LoggerFactory.getLogger(HiCacheBackupOperator.class);

    private final KvGroup group;
    /** Opens the journal again while it is not open. */
    private final Supplier<HiCacheJournal> reopen;
    /** Null while the journal could not be opened for want of space: each backup tries again, and counts as refused until it opens. */
    private @Nullable HiCacheJournal journal;
    private final WritePolicy policy;
    /**
     * Pages a bounded memory keeps, per map: four times the group's logical capacity in pages (the
     * device cache, and a host tier twice its size, with room to spare), at least {@link #MIN_REMEMBERED}.
     * A page forgotten and seen again counts from one and may be journaled again (replay keeps one copy).
     */
    static final int REMEMBERED_PER_CAPACITY_PAGE = 4;
    static final int MIN_REMEMBERED = 1024;
    /** Hit counts of the pages seen most recently. */
    private final Map<String, Integer> hits;
    /** Pages journaled, the most recently used kept. */
    private final Set<String> backedUp;
    private final BackupStaging staging;
    private long pagesJournaled;
    private long failures;
    /** Backups refused since the last one the journal took: a full disk is logged once, not once a request. */
    private long refusedInARow;

    /**
     * A stage that journals into {@code journal}, which {@link #close()} closes.
     *
     * @param group   the group whose rank stores hold the pages
     * @param journal where the backups go
     * @param policy  when a page is backed up
     * @throws IllegalArgumentException for {@code write_back}, which backs up on device eviction,
     *                                  and for a group without KV bytes
     */
    public HiCacheBackupOperator(KvGroup group, HiCacheJournal journal, WritePolicy policy) {
        this(group, Objects.requireNonNull(journal, "journal"), () -> journal, policy);
    }

    private HiCacheBackupOperator(KvGroup group, @Nullable HiCacheJournal journal, Supplier<HiCacheJournal> reopen, WritePolicy policy) {
        this.group = Objects.requireNonNull(group, "group");
        this.journal = journal;
        this.reopen = reopen;
        this.policy = Objects.requireNonNull(policy, "policy");
        if (policy == WritePolicy.WRITE_BACK) {
            throw new IllegalArgumentException("write_back backs pages up when the device cache evicts them; "
                    + "this stage sees finished requests only: use write_through or write_through_selective");
        }
        requireBytes(group);
        this.staging = new BackupStaging(group.stores().countedAs(STAGE));
        long capacityPages = group.capacityTokens() / group.config().pageSize();
        int bound = (int) Math.min(Integer.MAX_VALUE / 2, Math.max(MIN_REMEMBERED, REMEMBERED_PER_CAPACITY_PAGE * capacityPages));
        this.hits = new RecentPages<>(bound);
        this.backedUp = Collections.newSetFromMap(new RecentPages<>(bound));
    }

    /**
     * A stage that journals into a HiCache journal it opens in {@code dir} (page size and row
     * layout from the group) and closes with {@link #close()}. A file system too full to open it
     * on does not stop the run: its backups are refused and counted until the journal opens.
     *
     * @param group  the group whose rank stores hold the pages
     * @param dir    the journal directory
     * @param policy when a page is backed up
     * @return the stage
     * @throws JournalIoException if the directory cannot hold a journal or holds one of another layout
     */
    public static HiCacheBackupOperator journaling(KvGroup group, Path dir, WritePolicy policy) {
        requireBytes(group);
        JournalOptions options = JournalOptions.of(dir, new JournalLayout(group.config().pageSize(), group.model().layout()));
        Supplier<HiCacheJournal> open = () -> HiCacheJournal.open(options);
        HiCacheJournal journal = null;
        try {
            journal = open.get();
        } catch (JournalFullException full) {
            // the first backup tries again, and its refusal is logged
        }
        return new HiCacheBackupOperator(group, journal, open, policy);
    }

    /** The journal, opened again if it was not open (a refusal then is a {@link JournalFullException}, counted by the caller). */
    private HiCacheJournal journal() {
        if (journal == null) {
            journal = reopen.get();
        }
        return journal;
    }

    private static void requireBytes(KvGroup group) {
        if (!group.model().storesBytes()) {
            throw new IllegalArgumentException("the backup stage journals KV bytes: the group's model stores none");
        }
    }

    /** Closes the journal and frees the staging pages (before the pools' memory is closed). */
    @Override
    public synchronized void close() {
        if (journal != null) {
            journal.close();
        }
        staging.close();
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        StageRunner runner = new StageRunner(group, STAGE);
        BatchStage stage = this::backup;
        return upstream.concatMap(batch -> Mono.fromCallable(() -> runner.run(stage, batch)).subscribeOn(Schedulers.boundedElastic()), 1)
                .name(STAGE);
    }

    /** {@return pages written to the journal so far (each pool counts once)} */
    public synchronized long pagesJournaled() {
        return pagesJournaled;
    }

    /** {@return backups the journal refused (full, unwritable); the first of each streak is logged as a warning} */
    public synchronized long failures() {
        return failures;
    }

    /** Journals the requests that finish in this batch; a bad token row fails its request, a refusing journal only logs. */
    private synchronized PrefillBatch backup(PrefillBatch batch) {
        return batch.mapActive(entry -> {
            if (entry.lastChunk()) {
                try {
                    backupRequest(entry.state());
                    if (refusedInARow > 0) {
                        LOG.warn("HiCache backups resume with request {}, after {} skipped", entry.id(), refusedInARow);
                        refusedInARow = 0;
                    }
                } catch (JournalIoException e) {
                    failures++;
                    if (refusedInARow++ == 0) {
                        LOG.warn("HiCache backup of request {} skipped, and later ones until the journal takes one again: {}", entry.id(),
                                e.getMessage());
                    } else {
                        LOG.debug("HiCache backup of request {} skipped: {}", entry.id(), e.getMessage());
                    }
                }
            }
            return entry;
        });
    }

    private void backupRequest(RequestState state) {
        int ps = group.config().pageSize();
        int[] tokens = state.request().tokenIds();
        List<byte[]> hashes = PageHashChain.fullPageHashes(tokens, ps);
        int prefixPages = state.prefixTokens() / ps;
        List<Integer> due = new java.util.ArrayList<>();
        for (int pos = 0; pos < hashes.size(); pos++) {
            String key = PageHashChain.key(hashes.get(pos));
            int count = hits.merge(key, 1, Integer::sum);
            if ((policy == WritePolicy.WRITE_THROUGH ? pos >= prefixPages : count >= 2) && !backedUp.contains(key)) {
                due.add(pos);
            }
        }
        int[] pages = new int[due.size()];
        long[][] locs = new long[due.size()][];
        for (int i = 0; i < pages.length; i++) {
            locs[i] = state.locs((long) due.get(i) * ps, (long) (due.get(i) + 1) * ps);
            pages[i] = Math.toIntExact(locs[i][0] / ps);
        }
        staging.stage(pages);
        for (int i = 0; i < pages.length; i++) {
            int pos = due.get(i);
            if (!backedUp.add(PageHashChain.key(hashes.get(pos)))) {
                continue; // the same page content twice in one request: journaled once
            }
            byte[] parent = pos == 0 ? null : hashes.get(pos - 1);
            int[] pageTokens = Arrays.copyOfRange(tokens, pos * ps, (pos + 1) * ps);
            for (HiCachePool pool : HiCachePool.values()) {
                journal().backup(new PageBackup(hashes.get(pos), parent, pageTokens, group.stores().holder(pages[i]), pos, layers(), pool,
                        staging.payload(i, KvComponent.of(pool))), locs[i]);
                pagesJournaled++;
            }
        }
    }

    /** {@return the pages whose hit counts this stage keeps, and the journaled pages it remembers} (bounded; for tests) */
    int[] remembered() {
        return new int[] {hits.size(), backedUp.size()};
    }

    private int layers() {
        return group.model().layerCount();
    }
}
