package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.decode.DecodeReceiver;

/** A flow that journals is refused at build() in a JVM that lacks the journal's flags, naming each one; with them it builds. */
class JournalJvmFlagsTest {
    /** Run in a child JVM: builds a journaling flow and prints the problems (or "built"). */
    public static void main(String[] args) {
        CpSharedKvConfig config = DslTest.CONFIG.toBuilder()
                .hicache(HiCacheConfig.builder().enabled(true).writePolicy(WritePolicy.WRITE_THROUGH).build()).build();
        PrefillFlow flow = KvFlow.prefill(config).model(DslTest.MODEL)
                .admit(Admission.batchGate().maxRequests(4))
                .split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64))
                .write(Write.ownerRows())
                .materialize(Materialize.fullView())
                .backup(HiCacheBackup.journal(Path.of(args[0])))
                .transfer(PdTransfer.inMemory(new DecodeReceiver(64, 16, DslTest.MODEL.layout())));
        try {
            flow.build();
            System.out.println("built");
        } catch (PipelineDefinitionException e) {
            e.problems().forEach(System.out::println);
        }
    }

    private static List<String> child(List<String> flags, Path dir) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow()));
        command.addAll(flags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), JournalJvmFlagsTest.class.getName(), dir.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out.lines().toList();
    }

    @Test
    void aJournalingFlowNamesEveryMissingFlagAndBuildsWithThem(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertThat(child(List.of(), dir.resolve("a"))).containsExactly("backup: the HiCache journal needs the JVM flags "
                + "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED "
                + "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED (see jvm.args in the README)");
        assertThat(child(List.of("--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"),
                dir.resolve("b"))).containsExactly("backup: the HiCache journal needs the JVM flags "
                + "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED (see jvm.args in the README)");
        assertThat(child(List.of("--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "-Dchronicle.analytics.disable=true"), dir.resolve("c")))
                .containsExactly("built");
    }
}
