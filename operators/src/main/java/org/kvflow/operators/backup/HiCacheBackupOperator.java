package org.kvflow.operators.backup;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.journal.JournalIoException;
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
    private final HiCacheJournal journal;
    private final WritePolicy policy;
    private final Map<String, Integer> hits = new HashMap<>();
    private final Set<String> backedUp = new HashSet<>();
    private final BackupStaging staging;
    private long pagesJournaled;
    private long failures;

    /**
     * A stage that journals into {@code journal}, which its caller keeps and closes.
     *
     * @param group   the group whose rank stores hold the pages
     * @param journal where the backups go
     * @param policy  when a page is backed up
     * @throws IllegalArgumentException for {@code write_back}, which backs up on device eviction,
     *                                  and for a group without KV bytes
     */
    public HiCacheBackupOperator(KvGroup group, HiCacheJournal journal, WritePolicy policy) {
        this.group = Objects.requireNonNull(group, "group");
        this.journal = Objects.requireNonNull(journal, "journal");
        this.policy = Objects.requireNonNull(policy, "policy");
        if (policy == WritePolicy.WRITE_BACK) {
            throw new IllegalArgumentException("write_back backs pages up when the device cache evicts them; "
                    + "this stage sees finished requests only: use write_through or write_through_selective");
        }
        requireBytes(group);
        this.staging = new BackupStaging(group.stores().countedAs(STAGE));
    }

    /**
     * A stage that journals into a HiCache journal it opens in {@code dir} (page size and row
     * layout from the group) and closes with {@link #close()}.
     *
     * @param group  the group whose rank stores hold the pages
     * @param dir    the journal directory
     * @param policy when a page is backed up
     * @return the stage
     */
    public static HiCacheBackupOperator journaling(KvGroup group, Path dir, WritePolicy policy) {
        requireBytes(group);
        HiCacheJournal journal = HiCacheJournal.open(JournalOptions.of(dir, new JournalLayout(group.config().pageSize(), group.model().layout())));
        return new HiCacheBackupOperator(group, journal, policy);
    }

    private static void requireBytes(KvGroup group) {
        if (!group.model().storesBytes()) {
            throw new IllegalArgumentException("the backup stage journals KV bytes: the group's model stores none");
        }
    }

    /** Closes the journal and frees the staging pages (before the pools' memory is closed). */
    @Override
    public synchronized void close() {
        journal.close();
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

    /** {@return backups the journal refused (full, unwritable); each was logged} */
    public synchronized long failures() {
        return failures;
    }

    /** Journals the requests that finish in this batch; a bad token row fails its request, a refusing journal only logs. */
    private synchronized PrefillBatch backup(PrefillBatch batch) {
        return batch.mapActive(entry -> {
            if (entry.lastChunk()) {
                try {
                    backupRequest(entry.state());
                } catch (JournalIoException e) {
                    failures++;
                    LOG.warn("HiCache backup of request {} skipped: {}", entry.id(), e.getMessage());
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
                journal.backup(new PageBackup(hashes.get(pos), parent, pageTokens, group.stores().holder(pages[i]), pos, layers(), pool,
                        staging.payload(i, KvComponent.of(pool))), locs[i]);
                pagesJournaled++;
            }
        }
    }

    private int layers() {
        return group.model().layerCount();
    }
}
