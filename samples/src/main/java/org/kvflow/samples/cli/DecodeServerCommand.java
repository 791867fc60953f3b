package org.kvflow.samples.cli;

import java.util.concurrent.Callable;
import org.kvflow.dsl.tcp.DecodeServerMain;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvflow decode-server}: a non-CP decode receiver on TCP, for PD transfer from a prefill pipeline. */
@Command(name = "decode-server", mixinStandardHelpOptions = true,
        description = "Run a decode receiver (non-CP, full layout) for the tcp transfer backend; prints LISTENING <port>.")
final class DecodeServerCommand implements Callable<Integer> {
    @Option(names = "--port", defaultValue = "0", description = "TCP port (0: any free port)") int port;
    @Option(names = "--pages", defaultValue = "65536", description = "decode pool pages") int pages;
    @Option(names = "--page-size", defaultValue = "64") int pageSize;
    @Option(names = "--layers", defaultValue = "2", description = "layers of KV (0: track pages only)") int layers;
    @Option(names = "--latent", defaultValue = "512") int latent;
    @Option(names = "--rope", defaultValue = "64") int rope;
    @Option(names = "--index", defaultValue = "128") int index;
    @Option(names = "--kv-dtype", defaultValue = "FP8_E4M3", description = "BF16 | FP8_E4M3") String dtype;

    @Override
    public Integer call() throws InterruptedException {
        DecodeServerMain.main(new String[] {Integer.toString(port), Integer.toString(pages), Integer.toString(pageSize),
                Integer.toString(layers), Integer.toString(latent), Integer.toString(rope), Integer.toString(index), dtype});
        return KvflowCli.EXIT_OK;
    }
}
