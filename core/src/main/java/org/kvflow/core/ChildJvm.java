package org.kvflow.core;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The command that starts another JVM like this one (its runtime, class path and the flags the
 * stack needs: module opens, native access, the collector), for the child processes kvflow starts:
 * rank processes, and the demo's decode server.
 */
public final class ChildJvm {
    private ChildJvm() {}

    /**
     * @param heap      the child's maximum heap, e.g. {@code 1g}
     * @param mainClass the class whose {@code main} the child runs
     * @param args      its arguments
     * @return the command line
     */
    public static List<String> command(String heap, Class<?> mainClass, List<String> args) {
        return build(heap, List.of(), mainClass, args);
    }

    /**
     * The same command with the child's temporary files under {@code tmpDir} (its
     * {@code java.io.tmpdir}): what the child's libraries extract there can be removed with the folder
     * however the child ends, even when it is killed before its own exit hooks run; and with system
     * properties of the child's own (e.g. the device a decode server's pool lies on).
     *
     * @param tmpDir     an existing folder the caller removes after the child ends
     * @param properties the child's {@code -D} properties, by name
     */
    public static List<String> command(String heap, Path tmpDir, Map<String, String> properties, Class<?> mainClass, List<String> args) {
        List<String> flags = new ArrayList<>();
        flags.add("-Djava.io.tmpdir=" + tmpDir);
        new TreeMap<>(properties).forEach((name, value) -> flags.add("-D" + name + "=" + value));
        return build(heap, flags, mainClass, args);
    }

    private static List<String> build(String heap, List<String> flags, Class<?> mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-") || a.startsWith("--enable-native") || a.startsWith("--sun-misc") || a.startsWith("-Dchronicle")
                        || a.startsWith("-XX:+Use"))
                .toList());
        command.addAll(flags);
        command.addAll(List.of("-Xmx" + heap, "-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(args);
        return command;
    }
}
