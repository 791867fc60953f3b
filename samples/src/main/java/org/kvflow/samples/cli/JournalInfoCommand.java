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
@Command(name = "journal-info", mixinStandardHelpOptions = true, description = "Summarise a HiCache journal.")
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
            JsonOutput.print(out, JsonNodeFactory.instance.objectNode().put("layout", info.layout().toString())
                    .put("cycles", info.cycles()).put("records", info.records()).put("bytes", info.bytesOnDisk())
                    .put("firstIndex", JournalIndex.format(info.firstIndex())).put("lastIndex", JournalIndex.format(info.lastIndex())));
        } else {
            out.println("journal " + journal + ": " + info.layout());
            out.println("cycles " + info.cycles() + ", records " + info.records() + ", bytes on disk " + info.bytesOnDisk());
            out.println("first index " + JournalIndex.format(info.firstIndex()) + ", last index " + JournalIndex.format(info.lastIndex()));
            out.flush();
        }
        return KvflowCli.EXIT_OK;
    }
}
