package org.kvflow.operators.group;

import java.util.Arrays;

/**
 * What a group does when a rank's pool is gone (its process died): every live request holding a
 * page stored there is marked lost ({@link RequestState#lost}, so its next stage fails it and frees
 * its pages), and every cached page stored there is forgotten, so no later request reuses bytes
 * that are gone. Page accounting stays whole: the rank's pages come back as their holders are
 * released, for the rank's fresh pool once it is restarted.
 */
final class RankLoss {
    private final RankStores stores;
    private final PageAccounting accounting;

    RankLoss(RankStores stores, PageAccounting accounting) {
        this.stores = stores;
        this.accounting = accounting;
    }

    /** Rank {@code rank}'s pool is gone, for {@code why}. */
    void handle(int rank, RuntimeException why) {
        accounting.lose(page -> Arrays.stream(stores.ranksStoring(page)).anyMatch(r -> r == rank), why);
    }
}
