package org.kvflow.kernels.aparapi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Whether the JDK's signal chaining library ({@code libjsig}) is preloaded into this JVM. Starting
 * an OpenCL platform may install the platform's own handlers for signals the JVM itself relies on:
 * PoCL's LLVM takes SIGSEGV, SIGBUS and SIGILL, PoCL SIGFPE. Safepoints make the JVM's threads fault
 * on purpose, so once its handlers are gone the process can die at any later safepoint, with no error
 * report. With {@code libjsig} preloaded the JVM keeps its handlers and calls the platform's only for
 * faults that are not its own (docs/decisions.md, D51). Known on Linux, from the process's mapped
 * files; elsewhere unknown.
 */
final class SignalChaining {
    private static final System.Logger LOG = System.getLogger(SignalChaining.class.getName());
    private static final String LIBRARY = "libjsig.so";
    private static final Path MAPS = Path.of("/proc/self/maps");
    private static volatile boolean warned;

    private SignalChaining() {}

    /** Whether {@code libjsig} is among this process's mapped files; empty where they cannot be read (not Linux). */
    static Optional<Boolean> preloaded() {
        try (Stream<String> lines = Files.lines(MAPS)) {
            return Optional.of(preloaded(lines));
        } catch (IOException | UncheckedIOException e) { // no such file off Linux
            return Optional.empty();
        }
    }

    /** Whether a {@code /proc/<pid>/maps} listing maps {@code libjsig}. */
    static boolean preloaded(Stream<String> maps) {
        return maps.anyMatch(line -> line.endsWith("/" + LIBRARY));
    }

    /** What to tell a user whose JVM runs OpenCL without {@code libjsig}, given where its JDK lies. */
    static String advice(String javaHome) {
        return "OpenCL started in a JVM without signal chaining: its platform may have replaced the JVM's signal handlers,"
                + " and the JVM can then die at a safepoint with no error report; run java with LD_PRELOAD="
                + Path.of(javaHome, "lib", LIBRARY);
    }

    /** Logs {@link #advice} once per JVM where {@code libjsig} is known to be missing. */
    static void warnIfMissing() {
        if (!warned && preloaded().map(p -> !p).orElse(false)) {
            warned = true;
            LOG.log(System.Logger.Level.WARNING, advice(System.getProperty("java.home")));
        }
    }
}
