package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The {@code admission} and {@code transfer} kinds against contract §15 items 11–21, 23, 26–32. */
class SimulateAdmissionTransferTest {
    private static final String BS_GT1 = "{\"cpSize\":8,\"sharedKv\":true,\"bsGt1\":true";

    private static String answer(String scenario) {
        Cli.Result r = Cli.runWithStdin(scenario, "simulate", "--scenario", "-");
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        return r.out().strip();
    }

    private static String admission(String configFields, String queue) {
        return answer("{\"kind\":\"admission\",\"config\":" + configFields + "},\"remTotal\":1000000,\"queue\":" + queue + "}");
    }

    private static String q(String name, int extend) {
        return "{\"name\":\"" + name + "\",\"extendLen\":" + extend + ",\"maxNew\":100}";
    }

    @Test
    void cpGateWithoutSharedKv() {
        assertThat(admission("{\"cpSize\":8", "[" + q("A", 5000) + "," + q("B", 300) + "]"))
                .isEqualTo("{\"admitted\":[{\"name\":\"A\",\"extendLen\":5000}],\"chunked\":null,\"stop\":\"OTHER\"}");
    }

    @Test
    void bsGt1BatchesAndChunks() {
        assertThat(admission(BS_GT1, "[" + q("A", 5000) + "," + q("B", 300) + "]"))
                .isEqualTo("{\"admitted\":[{\"name\":\"A\",\"extendLen\":5000},{\"name\":\"B\",\"extendLen\":300}],\"chunked\":null,\"stop\":\"END\"}");
        assertThat(admission(BS_GT1, "[" + q("A", 3000) + "," + q("B", 6000) + "]"))
                .isEqualTo("{\"admitted\":[{\"name\":\"A\",\"extendLen\":3000},{\"name\":\"B\",\"extendLen\":5184}],\"chunked\":\"B\",\"stop\":\"OTHER\"}");
        assertThat(admission(BS_GT1 + ",\"maxExtendTokens\":4096", "[" + q("A", 10000) + "]"))
                .isEqualTo("{\"admitted\":[{\"name\":\"A\",\"extendLen\":8192}],\"chunked\":\"A\",\"stop\":\"OTHER\"}");
        assertThat(admission(BS_GT1 + ",\"maxRequests\":2", "[" + q("A", 1000) + "," + q("B", 1000) + "," + q("C", 1000) + "]"))
                .contains("\"name\":\"B\"").doesNotContain("\"name\":\"C\"").endsWith("\"stop\":\"OTHER\"}");
    }

    @Test
    void noTokenAndChunkedInFlight() {
        assertThat(answer("{\"kind\":\"admission\",\"config\":" + BS_GT1 + "},\"remTotal\":8050,\"queue\":[" + q("A", 8000) + "]}"))
                .isEqualTo("{\"admitted\":[],\"chunked\":null,\"stop\":\"NO_TOKEN\"}");
        assertThat(answer("{\"kind\":\"admission\",\"config\":{\"cpSize\":8,\"sharedKv\":true},\"remTotal\":1000000,"
                + "\"chunked\":{\"name\":\"X\",\"extendLen\":3000},\"queue\":[" + q("B", 100) + "]}"))
                .isEqualTo("{\"admitted\":[{\"name\":\"X\",\"extendLen\":3000}],\"chunked\":null,\"stop\":\"OTHER\"}");
    }

    @Test
    void defaultsAndEmptyQueue() {
        assertThat(answer("{\"kind\":\"admission\",\"remTotal\":0}")).isEqualTo("{\"admitted\":[],\"chunked\":null,\"stop\":\"END\"}");
        assertThat(answer("{\"kind\":\"admission\",\"remTotal\":100,\"chunked\":null,\"queue\":[{\"name\":\"A\",\"extendLen\":10}]}"))
                .isEqualTo("{\"admitted\":[{\"name\":\"A\",\"extendLen\":10}],\"chunked\":null,\"stop\":\"END\"}");
    }

    @Test
    void transferPlanOfRankOneAndRuns() {
        String out = answer("{\"kind\":\"transfer\",\"cpSize\":4,\"pageSize\":64,\"prefillPages\":[8,9,10,11,12,13,14,15],"
                + "\"decodePages\":[40,41,42,43,44,45,46,47],\"chunk\":[0,8],\"seqLen\":512}");
        assertThat(out).startsWith("{\"ranks\":[{\"rank\":0,\"pairs\":[{\"pos\":0,\"srcLocal\":2,\"dst\":40},{\"pos\":4,\"srcLocal\":3,\"dst\":44}],"
                + "\"runs\":[{\"src\":[2],\"dst\":[40]},{\"src\":[3],\"dst\":[44]}],\"complete\":true},"
                + "{\"rank\":1,\"pairs\":[{\"pos\":1,\"srcLocal\":2,\"dst\":41},{\"pos\":5,\"srcLocal\":3,\"dst\":45}]")
                .endsWith("\"pagesSent\":8}");
    }

    @Test
    void transferExampleFromTheScenarioFormat() {
        assertThat(answer("{\"kind\":\"transfer\",\"cpSize\":4,\"pageSize\":64,\"prefillPages\":[8,9,10,11],"
                + "\"decodePages\":[40,41,42,43],\"chunk\":[0,4],\"seqLen\":256}"))
                .startsWith("{\"ranks\":[{\"rank\":0,\"pairs\":[{\"pos\":0,\"srcLocal\":2,\"dst\":40}],\"runs\":[{\"src\":[2],\"dst\":[40]}],\"complete\":true}")
                .endsWith("\"pagesSent\":4}");
    }

    @Test
    void tailAndNonLastChunk() {
        assertThat(answer("{\"kind\":\"transfer\",\"cpSize\":8,\"pageSize\":64,\"prefillPages\":[1,2,3],"
                + "\"decodePages\":[5,6,7],\"chunk\":[0,3],\"seqLen\":130}")).endsWith("\"pagesSent\":3}");
        String partial = answer("{\"kind\":\"transfer\",\"cpSize\":2,\"pageSize\":4,\"prefillPages\":[1,2,3],"
                + "\"decodePages\":[5,6],\"chunk\":[0,2],\"seqLen\":12}");
        assertThat(partial).contains("\"complete\":false").endsWith("\"pagesSent\":2}");
    }
}
