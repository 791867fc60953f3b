package org.kvflow.samples.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.ChildJvm;
import org.kvflow.transport.tcp.DecodeServerMain;

/** A decode server in a child JVM on a free loopback port; {@link #close()} kills it. */
public final class DecodeProcess implements AutoCloseable {
    private final Process process;
    private final int port;

    private DecodeProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts the child with this JVM's class path and waits until it listens.
     *
     * @param main {@code DecodeServerMain}, or a main that serves as it does with an engine's landing ({@code UcxDecodeServerMain})
     */
    public static DecodeProcess start(Class<?> main, int pages, int pageSize, KvLayout layout) throws IOException {
        List<String> command = ChildJvm.command("2g", main, List.of(DecodeServerMain.arguments(0, pages, pageSize, layout)));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("LISTENING ")) {
            p.destroyForcibly();
            throw new IOException("the decode process did not start (said " + line + ")");
        }
        return new DecodeProcess(p, Integer.parseInt(line.substring("LISTENING ".length()).trim()));
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
