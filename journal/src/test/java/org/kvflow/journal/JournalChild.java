package org.kvflow.journal;

import java.nio.file.Path;
import java.util.List;
import org.kvflow.journal.record.PageBackup;

/**
 * A child JVM for the crash and disk-full tests: appends pages of a deterministic prompt and prints
 * each completed index ({@code OK <n> <index>}); in {@code fill} mode it appends until the journal
 * refuses and prints {@code FULL <message>}.
 */
public final class JournalChild {
    private JournalChild() {}

    public static void main(String[] args) {
        String mode = args[0];
        Path dir = Path.of(args[1]);
        int pages = Integer.parseInt(args[2]);
        List<PageBackup> all = TestPages.prompt(77, pages);
        try (HiCacheJournal journal = HiCacheJournal.open(TestPages.options(dir))) {
            for (int n = 0; n < all.size(); n++) {
                long index = journal.backup(all.get(n), TestPages.locs(n));
                System.out.println("OK " + n + " " + index);
                System.out.flush();
            }
            System.out.println("DONE");
        } catch (JournalFullException e) {
            System.out.println("FULL " + e.getMessage());
        }
        System.out.flush();
        if (mode.equals("crash")) {
            // wait to be killed: the parent sends SIGKILL while records are being appended or after
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
