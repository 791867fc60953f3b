package org.kvflow.samples.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.ChildJvm;
import org.kvflow.transport.tcp.DecodeServerMain;

/** A decode server in a child JVM on a free loopback port; {@link #close()} ends it. */
public final class DecodeProcess implements AutoCloseable {
    /** How long the child gets to run its shutdown hooks before it is killed. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final Process process;
    private final int port;

    private DecodeProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts the child with this JVM's class path and waits until it listens.
     *
     * @param main   {@code DecodeServerMain}, or a main that serves as it does with an engine's landing ({@code UcxDecodeServerMain})
     * @param layout the decode pool's row layout, or null for pages only
     */
    public static DecodeProcess start(Class<?> main, int pages, int pageSize, @Nullable KvLayout layout) throws IOException {
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

    /**
     * Asks the child to stop (SIGTERM), so its shutdown hooks run (a native library extracted to a
     * temporary directory, as jucx does, is deleted by one), and kills it only if it has not ended
     * within {@link #STOP_GRACE}.
     */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
