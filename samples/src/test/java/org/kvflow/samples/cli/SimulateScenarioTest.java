package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The answers of {@code kvflow simulate} for the contract §15 scenarios of the foundation kinds. */
class SimulateScenarioTest {
    private static String answer(String scenario) {
        Cli.Result r = Cli.runWithStdin(scenario, "simulate", "--scenario", "-");
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.out()).endsWith("\n").doesNotContain("\n\n");
        return r.out().strip();
    }

    @Test
    void ownershipOfPagesAndLocs() {
        assertThat(answer("""
                {"kind":"ownership","cpSize":8,"pageSize":64,"pagesPerRank":16,"pageIds":[17,18,40,3],"locs":[1000]}"""))
                .isEqualTo("{\"pages\":[{\"page\":17,\"owner\":1,\"localPage\":2},{\"page\":18,\"owner\":2,\"localPage\":2},"
                        + "{\"page\":40,\"owner\":0,\"localPage\":5},{\"page\":3,\"owner\":3,\"localPage\":0}],"
                        + "\"locs\":[{\"loc\":1000,\"page\":15,\"offset\":40,\"owner\":7,\"localPage\":1,\"localRow\":104,"
                        + "\"sharedRow\":7272}]}");
    }

    @Test
    void ownershipOmitsSharedRowWithoutPagesPerRankAndDefaultsLists() {
        assertThat(answer("{\"kind\":\"ownership\",\"cpSize\":4,\"pageSize\":2,\"locs\":[5]}"))
                .isEqualTo("{\"pages\":[],\"locs\":[{\"loc\":5,\"page\":2,\"offset\":1,\"owner\":2,\"localPage\":0,\"localRow\":1}]}");
        assertThat(answer("{\"kind\":\"ownership\",\"cpSize\":4,\"pageSize\":2,\"pagesPerRank\":8,\"locs\":[2,3,15]}"))
                .contains("\"sharedRow\":16").contains("\"sharedRow\":17").contains("\"sharedRow\":51");
    }

    @Test
    void inSeqSplit() {
        assertThat(answer("{\"kind\":\"split\",\"mode\":\"in-seq-split\",\"cpSize\":4,\"tokens\":20}"))
                .isEqualTo("{\"cpSplit\":true,\"ranks\":[{\"rank\":0,\"ranges\":[[0,3],[18,20]],\"tokens\":5},"
                        + "{\"rank\":1,\"ranges\":[[3,6],[16,18]],\"tokens\":5},{\"rank\":2,\"ranges\":[[6,9],[14,16]],\"tokens\":5},"
                        + "{\"rank\":3,\"ranges\":[[9,12],[12,14]],\"tokens\":5}]}");
        assertThat(answer("{\"kind\":\"split\",\"mode\":\"in-seq-split\",\"cpSize\":8,\"tokens\":1000}"))
                .contains("{\"rank\":0,\"ranges\":[[0,63],[938,1000]],\"tokens\":125}")
                .contains("{\"rank\":7,\"ranges\":[[441,504],[504,566]],\"tokens\":125}");
    }

    @Test
    void unsplitCases() {
        assertThat(answer("{\"kind\":\"split\",\"mode\":\"in-seq-split\",\"cpSize\":4,\"tokens\":7}")).isEqualTo("{\"cpSplit\":false}");
        assertThat(answer("{\"kind\":\"split\",\"mode\":\"in-seq-split\",\"cpSize\":1,\"tokens\":70}")).isEqualTo("{\"cpSplit\":false}");
        assertThat(answer("{\"kind\":\"split\",\"mode\":\"round-robin-split\",\"cpSize\":4,\"tokens\":13}")).isEqualTo("{\"cpSplit\":false}");
        assertThat(answer("{\"kind\":\"split\",\"mode\":\"round-robin-split\",\"cpSize\":4,\"tokens\":0}")).isEqualTo("{\"cpSplit\":false}");
    }

    @Test
    void roundRobinSplit() {
        assertThat(answer("{\"kind\":\"split\",\"mode\":\"round-robin-split\",\"cpSize\":4,\"tokens\":12}"))
                .contains("{\"rank\":1,\"tokenIds\":[1,5,9],\"tokens\":3}");
    }

    @Test
    void pageValidationAnswers() {
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":4,\"indices\":[8,9,10,11,0,1,2,3]}")).isEqualTo("{\"ok\":true,\"pages\":2}");
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":4,\"indices\":[]}")).isEqualTo("{\"ok\":true,\"pages\":0}");
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":4,\"indices\":[8,9,10]}"))
                .isEqualTo("{\"ok\":false,\"error\":\"PARTIAL\",\"value\":3}");
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":4,\"indices\":[9,10,11,12]}"))
                .isEqualTo("{\"ok\":false,\"error\":\"MISALIGNED\",\"group\":0,\"offset\":0,\"value\":9}");
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":4,\"indices\":[8,9,11,10]}"))
                .isEqualTo("{\"ok\":false,\"error\":\"NON_CONTIGUOUS\",\"group\":0,\"offset\":2,\"value\":11}");
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":4,\"indices\":[0,1,2,3,6,7,8,9]}"))
                .isEqualTo("{\"ok\":false,\"error\":\"MISALIGNED\",\"group\":1,\"offset\":0,\"value\":6}");
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":4,\"indices\":[4,5,6,7,12,13,14,16]}"))
                .isEqualTo("{\"ok\":false,\"error\":\"NON_CONTIGUOUS\",\"group\":1,\"offset\":3,\"value\":16}");
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":2,\"indices\":[-2,-1]}"))
                .isEqualTo("{\"ok\":false,\"error\":\"NEGATIVE\",\"group\":0,\"offset\":0,\"value\":-2}");
    }

    @Test
    void nonPositivePageSizeIsAnAnswer() {
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":0,\"indices\":[1]}"))
                .isEqualTo("{\"ok\":false,\"error\":\"BAD_PAGE_SIZE\",\"value\":0}");
        assertThat(answer("{\"kind\":\"pages\",\"pageSize\":-3,\"indices\":[]}"))
                .isEqualTo("{\"ok\":false,\"error\":\"BAD_PAGE_SIZE\",\"value\":-3}");
    }

    @Test
    void configRejections() {
        assertThat(answer("{\"kind\":\"config\",\"config\":{\"cpSize\":8,\"sharedKv\":true,\"split\":\"round-robin-split\"}}"))
                .startsWith("{\"ok\":false,\"errors\":[{\"code\":\"E-CP-3\",\"message\":\"round-robin CP shared KV is not wired");
        assertThat(answer("{\"kind\":\"config\",\"config\":{\"bsGt1\":true}}")).contains("\"code\":\"E-ADM-1\"");
        assertThat(answer("{\"kind\":\"config\",\"config\":{\"cpSize\":8,\"sharedKv\":true,\"disaggregationMode\":\"prefill\","
                + "\"transferBackend\":\"nixl\"}}")).contains("\"code\":\"E-PD-1\"");
        assertThat(answer("{\"kind\":\"config\",\"config\":{\"cpSize\":8,\"sharedKv\":true,\"hicache\":{\"enabled\":true,"
                + "\"storageBackend\":\"mooncake\",\"layout\":\"layer_first\"}}}")).contains("\"code\":\"E-HC-3\"");
        assertThat(answer("{\"kind\":\"config\",\"config\":{\"cpSize\":8,\"sharedKv\":true,\"hicache\":{\"enabled\":true,"
                + "\"layout\":\"page_first_direct\",\"ioBackend\":\"kernel\"}}}")).contains("\"code\":\"E-HC-2\"");
    }

    @Test
    void capsOfZeroAreAnswersWithBothCodes() {
        assertThat(answer("{\"kind\":\"config\",\"config\":{\"maxRequests\":0}}"))
                .contains("\"code\":\"E-ADM-2\"").contains("\"code\":\"E-ADM-4\"");
    }

    @Test
    void configPassesWithTheFullNormalizedObject() {
        assertThat(answer("{\"kind\":\"config\",\"config\":{\"chunkedPrefillSize\":null}}")).isEqualTo(
                "{\"ok\":true,\"normalized\":{\"cpSize\":1,\"pageSize\":64,\"split\":\"in-seq-split\",\"sharedKv\":false,"
                + "\"bsGt1\":false,\"allCpRanksTransfer\":true,\"hisparse\":false,\"cpRanksSameNode\":true,\"maxRequests\":null,"
                + "\"maxExtendTokens\":null,\"prefillMaxRequests\":null,\"chunkedPrefillSize\":null,\"maxPrefillTokens\":16384,"
                + "\"kvDtype\":\"bf16\",\"disaggregationMode\":\"null\",\"transferBackend\":\"mooncake\",\"model\":\"nsa-mla\","
                + "\"devicePoolTokens\":null,\"hicache\":{\"enabled\":false,\"storageBackend\":\"none\",\"layout\":\"page_first\","
                + "\"ioBackend\":\"kernel\",\"writePolicy\":\"write_through\",\"hostPoolTokens\":null}},\"warnings\":[]}");
    }

    @Test
    void configNormalisesWithoutSharedKv() {
        assertThat(answer("{\"kind\":\"config\",\"config\":{\"cpSize\":8,\"hicache\":{\"enabled\":true,"
                + "\"storageBackend\":\"mooncake\",\"layout\":\"layer_first\"}}}"))
                .contains("\"layout\":\"page_first\"").contains("\"warnings\":[{\"code\":\"W-HC-NORM\"");
    }

    @Test
    void hicacheKeys() {
        assertThat(answer("{\"kind\":\"hicache-keys\",\"pageSize\":2,\"tokenIds\":[1,2,3,4,5]}")).isEqualTo(
                "{\"pages\":[{\"pos\":0,\"hash\":\"34fb5c825de7ca4aea6e712f19d439c1da0c92c37b423936c5f618545ca4fa1f\"},"
                + "{\"pos\":1,\"hash\":\"c57b445f90651b9a650e516ab2238c965b21af35608a31c303e6d9e407f2915c\"}],\"backedUpPages\":2}");
        assertThat(answer("{\"kind\":\"hicache-keys\",\"pageSize\":2,\"tokenIds\":[1,2,3]}")).endsWith("\"backedUpPages\":1}");
    }
}
