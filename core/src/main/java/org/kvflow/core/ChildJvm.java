package org.kvflow.core;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-") || a.startsWith("--enable-native") || a.startsWith("--sun-misc") || a.startsWith("-Dchronicle")
                        || a.startsWith("-XX:+Use"))
                .toList());
        command.addAll(List.of("-Xmx" + heap, "-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(args);
        return command;
    }
}
