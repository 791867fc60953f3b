package org.kvflow.transport.tcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.ChildJvm;
import org.kvflow.core.FileTrees;
import org.kvflow.core.model.KvLayout;

/**
 * A decode server in a child JVM on loopback, as the demo, the benchmarks and the tests start one.
 * The child keeps its temporary files in a folder of its own ({@code java.io.tmpdir}: jucx and
 * JCuda extract their native libraries there) and writes its standard error into it;
 * {@link #close()} kills the child and removes the folder, so nothing is left behind although a
 * killed JVM never runs its exit hooks.
 */
public final class DecodeServerProcess implements AutoCloseable {
    private static final long EXIT_WAIT_SECONDS = 10;
    private static final String READY = "LISTENING ";

    private final Process process;
    private final int port;
    private final Path scratch;

    private DecodeServerProcess(Process process, int port, Path scratch) {
        this.process = process;
        this.port = port;
        this.scratch = scratch;
    }

    /**
     * Starts the child with this JVM's class path and returns once it listens.
     *
     * @param main     {@link DecodeServerMain}, or an engine's main that serves as it does
     * @param heap     the child's maximum heap, e.g. {@code 2g}
     * @param port     the port to listen on, 0 for a free one
     * @param layout   the pool's layout, or null for a server that tracks pages only
     * @throws IOException when the child cannot start or ends before it listens, with its last line of standard error
     */
    public static DecodeServerProcess start(Class<?> main, String heap, int port, int pages, int pageSize, @Nullable KvLayout layout)
            throws IOException {
        return start(main, heap, Map.of(), port, pages, pageSize, layout);
    }

    /**
     * The same start, with system properties for the child besides (e.g. the device of a cuda-ipc
     * decode server's pool).
     *
     * @param properties the child's {@code -D} properties, by name
     * @throws IOException when the child cannot start or ends before it listens, with its last line of standard error
     */
    public static DecodeServerProcess start(Class<?> main, String heap, Map<String, String> properties, int port, int pages, int pageSize,
            @Nullable KvLayout layout) throws IOException {
        Path scratch = Files.createTempDirectory("kvflow-decode-");
        Process p = null;
        try {
            Path errors = scratch.resolve("stderr.log");
            List<String> command = ChildJvm.command(heap, scratch, properties, main, List.of(DecodeServerMain.arguments(port, pages, pageSize, layout)));
            p = new ProcessBuilder(command).redirectError(errors.toFile()).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null || !line.startsWith(READY)) {
                throw new IOException("the decode process " + main.getSimpleName() + " did not start (said " + line + ")" + lastLine(p, errors));
            }
            return new DecodeServerProcess(p, Integer.parseInt(line.substring(READY.length()).trim()), scratch);
        } catch (IOException | RuntimeException e) {
            end(p, scratch);
            throw e;
        }
    }

    /** {@return the port the child listens on} */
    public int port() {
        return port;
    }

    /** {@return the child's process id} */
    public long pid() {
        return process.pid();
    }

    /** Kills the child and waits until it has ended, as a decode server that vanishes; its folder goes at {@link #close()}. */
    public void kill() {
        stop(process);
    }

    /** The child's {@code java.io.tmpdir}, removed by {@link #close()}. */
    Path scratch() {
        return scratch;
    }

    /** Kills the child if it still runs and removes its folder. */
    @Override
    public void close() {
        end(process, scratch);
    }

    private static String lastLine(Process child, Path errors) {
        try {
            child.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS);
            List<String> lines = Files.readAllLines(errors, StandardCharsets.UTF_8);
            return lines.isEmpty() ? "" : "; its last error line: " + lines.getLast();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Kills {@code child} and waits (bounded) until it has ended: its files may be open until then. */
    private static void stop(Process child) {
        child.destroyForcibly();
        try {
            child.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void end(@Nullable Process child, Path scratch) {
        if (child != null) {
            stop(child);
        }
        try {
            FileTrees.delete(scratch);
        } catch (IOException e) {
            System.err.println("kvflow: could not remove the decode process's folder " + scratch + ": " + e);
        }
    }
}
