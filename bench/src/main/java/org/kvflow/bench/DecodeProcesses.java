package org.kvflow.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.kvflow.core.ChildJvm;
import org.kvflow.core.model.KvLayout;
import org.kvflow.transport.tcp.DecodeServerMain;

/** Decode servers a transfer bench starts as child JVMs of this host, and the port each listens on. */
final class DecodeProcesses {
    private DecodeProcesses() {}

    /** Starts {@code main} ({@code DecodeServerMain} or an engine's) with a 12 GiB heap over a pool of {@code pages} pages. */
    static Process start(Class<?> main, int pages, int pageSize, KvLayout layout) throws Exception {
        return new ProcessBuilder(ChildJvm.command("12g", main, List.of(DecodeServerMain.arguments(0, pages, pageSize, layout))))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** The port from the process's ready line. */
    static int port(Process p) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("LISTENING ")) {
            throw new IllegalStateException("a decode process did not start (said " + line + ")");
        }
        return Integer.parseInt(line.substring("LISTENING ".length()).trim().split(" ")[0]);
    }
}
