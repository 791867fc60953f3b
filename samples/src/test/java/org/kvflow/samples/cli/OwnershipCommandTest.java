package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class OwnershipCommandTest {
    private static JsonNode json(String... args) throws Exception {
        Cli.Result r = Cli.run(args);
        assertThat(r.exit()).isZero();
        assertThat(r.err()).isEmpty();
        return new ObjectMapper().readTree(r.out());
    }

    @Test
    void nonAlignedTailUsesCeilPagesSpreadOverOwners() throws Exception {
        JsonNode a = json("ownership", "--cp", "8", "--tokens", "130", "--json");
        assertThat(a.get("pages").intValue()).isEqualTo(3);
        assertThat(a.get("pageTable").findValuesAsText("owner")).containsExactly("1", "2", "3");
        assertThat(a.get("perRankPages").toString()).isEqualTo("[0,1,1,1,0,0,0,0]");
        assertThat(a.get("physicalPages").toString()).isEqualTo("{\"shared\":3,\"replicated\":24}");
    }

    @Test
    void capacityOfFortyGibPerRankMatchesSpec() throws Exception {
        JsonNode c = json("ownership", "--cp", "8", "--tokens", "0", "--json").get("capacity");
        assertThat(c.get("bytesPerToken").longValue()).isEqualTo(48_068);
        assertThat(c.get("pagesPerRank").intValue()).isEqualTo(13_961);
        assertThat(c.get("sharedLogicalPages").longValue()).isEqualTo(8 * 13_961 - 1);
        assertThat(c.get("replicatedLogicalPages").longValue()).isEqualTo(13_960);
        assertThat(c.get("capacityRatio").doubleValue()).isEqualTo((8.0 * 13_961 - 1) / 13_960);

        JsonNode glm = json("ownership", "--cp", "8", "--tokens", "0", "--model", "glm-5", "--json").get("capacity");
        assertThat(glm.get("pagesPerRank").intValue()).isEqualTo(10_918);
        JsonNode bf16 = json("ownership", "--cp", "8", "--tokens", "0", "--kv-cache-dtype", "bf16", "--json").get("capacity");
        assertThat(bf16.get("pagesPerRank").intValue()).isEqualTo(8_568);
    }

    @Test
    void aRequestBeyondReplicatedCapacityStillFitsShared() throws Exception {
        JsonNode a = json("ownership", "--cp", "8", "--tokens", "1000000", "--json");
        assertThat(a.get("pages").intValue()).isEqualTo(15_625);
        assertThat(a.get("physicalPages").get("replicated").isNull()).isTrue();
        assertThat(a.get("physicalPages").get("shared").longValue()).isEqualTo(15_625);
    }

    @Test
    void textReportShowsTheRatio() {
        Cli.Result r = Cli.run("ownership", "--cp", "4", "--page-size", "64", "--tokens", "200");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).startsWith("request: 200 tokens, page size 64 -> 4 pages on CP 4")
                .contains("pages per rank: r0=1 r1=1 r2=1 r3=1").contains("capacity ratio (cp*N-1)/(N-1) = 4.0002");
        assertThat(r.out().lines().skip(1).limit(5)).as("the page table, one line a page")
                .containsExactly("pos\tpage\towner\tlocalPage", "0\t1\t1\t0", "1\t2\t2\t0", "2\t3\t3\t0", "3\t4\t0\t1");
        assertThat(r.out()).contains("physical pages: shared 4, replicated 16 (4 copies)");
        Cli.Result one = Cli.run("ownership", "--cp", "1", "--page-size", "1", "--tokens", "2");
        assertThat(one.exit()).as("the least CP and page size").isZero();
        assertThat(one.out()).contains("physical pages: shared 2, replicated 2 (1 copy)");
        // ten pages a rank: twelve pages fit the shared pool of CP2 (19 logical pages), not the replicated one (9)
        Cli.Result onlyShared = Cli.run("ownership", "--cp", "2", "--tokens", "768", "--budget-bytes", String.valueOf(48_068L * 64 * 10));
        assertThat(onlyShared.out()).contains("physical pages: shared 12, replicated (does not fit)").contains("10 pages per rank")
                .contains("shared CP2:     19 logical pages, 1216 tokens").contains("replicated CP2: 9 logical pages, 576 tokens");
    }

    @Test
    void badValuesNameTheFlag() {
        Cli.Result tooBig = Cli.run("ownership", "--cp", "2", "--tokens", "100000000");
        assertThat(tooBig.exit()).isEqualTo(2);
        assertThat(tooBig.out()).isEmpty();
        assertThat(tooBig.err()).startsWith("kvflow: --tokens: 100000000 tokens need 1562500 pages; the shared pool of cp 2 holds");
        assertThat(Cli.run("ownership", "--cp", "0", "--tokens", "1").err()).isEqualTo("kvflow: --cp: must be >= 1, was 0" + System.lineSeparator());
        assertThat(Cli.run("ownership", "--cp", "2", "--page-size", "0", "--tokens", "1").err())
                .isEqualTo("kvflow: --page-size: must be >= 1, was 0" + System.lineSeparator());
        assertThat(Cli.run("ownership", "--cp", "2", "--tokens", "1", "--model", "llama").err())
                .startsWith("kvflow: --model: must be one of [deepseek-v3.2, glm-5]");
        assertThat(Cli.run("ownership", "--cp", "2", "--tokens", "1", "--budget-bytes", "1000").err())
                .startsWith("kvflow: --budget-bytes: pagesPerRank must be >= 1, was 0");
    }
}
