package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Flags outside what a config file, the demo or the decode server allows, and a directory where a file belongs: exit 2, one line naming the flag. */
class OutOfRangeInputTest {
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            validate-config --cp 0                    | kvflow: --cp: must be >= 1, was 0
            validate-config --cp -8                   | kvflow: --cp: must be >= 1, was -8
            validate-config --device-pool-tokens -1   | kvflow: --device-pool-tokens: must be >= 0, was -1
            validate-config --chunked-prefill-size 0  | kvflow: --chunked-prefill-size: must be -1 (off) or >= 1, was 0
            validate-config --chunked-prefill-size -2 | kvflow: --chunked-prefill-size: must be -1 (off) or >= 1, was -2
            validate-config --page-size 0             | kvflow: --page-size: must be >= 1, was 0
            validate-config --prefill-max-requests -1 | kvflow: --prefill-max-requests: must be >= 0, was -1
            validate-config --max-prefill-tokens -1   | kvflow: --max-prefill-tokens: must be >= 0, was -1
            validate-config --hicache-host-pool-tokens -1 | kvflow: --hicache-host-pool-tokens: must be >= 0, was -1
            demo --max-len 2000000000                 | kvflow: --max-len: must be in [1, 131072], was 2000000000
            demo --cp 1000                            | kvflow: --cp: must be in [2, 64], was 1000
            demo --requests 0                         | kvflow: --requests: must be in [1, 100000], was 0
            demo --metrics-port 70000                 | kvflow: --metrics-port: must be in [0, 65535], was 70000
            demo --transfer rdma                      | kvflow: --transfer: tcp, ucx or cuda-ipc, not rdma
            demo --transfer cuda-ipc                  | kvflow: --transfer: cuda-ipc copies GPU to GPU: it needs --backend cuda, not java
            decode-server --bind 0.0.0.0              | kvflow: decode server on 0.0.0.0: an address beyond loopback needs mutual TLS (the server's certificate and key, and the CA that signs the prefill clients' certificates)
            decode-server --tls-cert a.pem            | kvflow: --tls-cert: give --tls-cert, --tls-key and --tls-client-ca together
            decode-server --pages 0                   | kvflow: --pages: must be in [1, 2147483647], was 0
            decode-server --pages 2147483647          | kvflow: --pages: 2147483647 pages of 41984 bytes make a layer buffer over 2 GiB
            decode-server --layers 100000             | kvflow: --layers: must be in [0, 1024], was 100000
            decode-server --page-size 0               | kvflow: --page-size: must be in [1, 1024], was 0
            decode-server --latent 0                  | kvflow: --latent: must be in [1, 65536], was 0
            decode-server --latent 100000             | kvflow: --latent: must be in [1, 65536], was 100000
            decode-server --rope -1                   | kvflow: --rope: must be in [0, 65536], was -1
            decode-server --index 0                   | kvflow: --index: must be in [1, 65536], was 0
            decode-server --metrics-port -1           | kvflow: --metrics-port: must be in [0, 65535], was -1
            decode-server --tls-cert /nonexistent/a.pem --tls-key /nonexistent/b.pem --tls-client-ca /nonexistent/c.pem | kvflow: TLS with certificate /nonexistent/a.pem, key /nonexistent/b.pem and CA /nonexistent/c.pem cannot be set up: File does not contain valid certificates: /nonexistent/a.pem
            decode-server --stats-interval-s -1       | kvflow: --stats-interval-s: must be in [0, 86400], was -1
            decode-server --ready-ttl-s 0             | kvflow: --ready-ttl-s: must be in [1, 86400], was 0
            decode-server --port 70000                | kvflow: --port: must be in [0, 65535], was 70000
            decode-server --idle-timeout-ms 0         | kvflow: decode server limits handshake=PT10S idle=PT0S maxConnections=64 readyTtl=PT10M maxPending=32 connectionsPerClient=2147483647 pagesPerClient=2147483647: durations must be positive and the caps at least 1
            decode-server --max-pages-per-client 0    | kvflow: --max-pages-per-client: must be in [1, 2147483647], was 0
            decode-server --max-pending-handshakes -3 | kvflow: --max-pending-handshakes: must be in [1, 2147483647], was -3
            decode-server --engine rdma               | kvflow: --engine: tcp, ucx or cuda-ipc, not rdma
            decode-server --device tpu                | kvflow: --device: java or cuda[:n], not tpu
            decode-server --engine cuda-ipc           | kvflow: --engine: cuda-ipc copies GPU to GPU: it needs --device cuda
            decode-server --engine cuda-ipc --layers 0 | kvflow: --engine: cuda-ipc lands page bytes: it needs --layers 1 or more
            decode-server --engine cuda-ipc --device cuda --bind 0.0.0.0 | kvflow: --engine: cuda-ipc on 0.0.0.0: CUDA IPC reaches only processes of this host, so it listens on loopback
            decode-server --engine ucx --device cuda  | kvflow: --engine: ucx lands in host memory: it needs --device java
            decode-server --engine ucx --layers 0     | kvflow: --engine: ucx lands page bytes: it needs --layers 1 or more
            decode-server --engine ucx --bind 0.0.0.0 | kvflow: --engine: ucx on 0.0.0.0: UCX carries no TLS, so beyond loopback it needs --trusted-fabric
            """)
    void refusedWithTheLimitInTheMessage(String command, String expected) {
        Cli.Result r = Cli.run(command.split(" "));
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo(expected + System.lineSeparator());
    }

    @Test
    void aDecodePoolLargerThanTheHeapIsRefusedBeforeItIsAllocated() {
        Cli.Result r = Cli.run("decode-server", "--layers", "1024", "--pages", "50000");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("kvflow: --layers: 1024 layers of 50000 pages need ").contains("; this JVM's heap holds at most ")
                .endsWith(" (fewer --pages or --layers, or a larger -Xmx)" + System.lineSeparator());
    }

    @Test
    void aDirectoryGivenAsAnInputFileIsMalformedInput(@TempDir Path dir) {
        for (String[] command : new String[][] {{"validate-config", "--config", dir.toString()}, {"simulate", "--scenario", dir.toString()}}) {
            Cli.Result r = Cli.run(command);
            assertThat(r.exit()).as(command[0]).isEqualTo(2);
            assertThat(r.err()).isEqualTo("kvflow: $: " + dir + " is a directory, not a file" + System.lineSeparator());
        }
    }

    @Test
    void aReportFolderThatCannotBeMadeIsRefusedBeforeTheDemoRuns(@TempDir Path dir) throws Exception {
        Path file = java.nio.file.Files.writeString(dir.resolve("taken"), "a file, not a folder");
        Path report = file.resolve("charts");
        Cli.Result r = Cli.run("demo", "--report", report.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).as("nothing ran").isEmpty();
        assertThat(r.err()).isEqualTo("kvflow: --report: cannot make the folder " + report + " (java.nio.file.FileSystemException: "
                + report + ": Not a directory)" + System.lineSeparator());
    }
}
