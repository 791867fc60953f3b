package org.kvflow.samples.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.kvflow.journal.replay.JournalReplayer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvflow journal-info}: a journal's layout, cycles, records, bytes and first/last index. */
@Command(name = "journal-info", mixinStandardHelpOptions = true, showDefaultValues = true,
        footer = {"%nExample:", "  kvflow journal-info --journal /tmp/kvflow-journal --json"}, description = "Summarise a HiCache journal.")
final class JournalInfoCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--journal", required = true, paramLabel = "DIR", description = "journal directory") Path journal;
    @Option(names = "--json", description = "print JSON") boolean json;

    @Override
    public Integer call() {
        JournalReplayer.JournalInfo info = JournalReplayer.info(journal);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            var o = JsonNodeFactory.instance.objectNode().put("layout", info.layout().toString())
                    .put("cycles", info.cycles()).put("records", info.records()).put("refused", info.refused()).put("bytes", info.bytesOnDisk())
                    .put("firstIndex", JournalIndex.format(info.firstIndex())).put("lastIndex", JournalIndex.format(info.lastIndex()));
            var damage = o.putArray("damage");
            info.damage().forEach(d -> damage.addObject().put("file", d.file()).put("firstBadIndex", JournalIndex.format(d.firstBadIndex()))
                    .put("bytesLost", d.bytesLost()).put("reason", d.reason()));
            JsonOutput.print(out, o);
        } else {
            out.println("journal " + journal + ": " + info.layout());
            out.println("cycles " + info.cycles() + ", records " + info.records() + " (" + info.refused()
                    + " refused by their CRC32C or format checks), bytes on disk " + info.bytesOnDisk());
            out.println("first index " + JournalIndex.format(info.firstIndex()) + ", last index " + JournalIndex.format(info.lastIndex()));
            info.damage().forEach(d -> out.println("damaged " + d.file() + " from record " + JournalIndex.format(d.firstBadIndex()) + ": "
                    + d.reason() + " (" + d.bytesLost() + " bytes lost)"));
            out.flush();
        }
        return info.damage().isEmpty() && info.refused() == 0 ? KvflowCli.EXIT_OK : ReplayCommand.EXIT_VERIFY_FAILED;
    }
}
