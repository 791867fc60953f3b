package org.kvflow.dsl;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags the HiCache journal (Chronicle Queue) cannot run without: it reaches into JDK
 * internals, and without them its first use throws {@code ExceptionInInitializerError}. A flow
 * that backs up to a journal is refused at {@code build()} when one is missing.
 */
final class JournalJvmFlags {
    private JournalJvmFlags() {}

    /** The flags this JVM lacks for code on the class path (the unnamed module), as {@code java} takes them; empty when none. */
    static List<String> missing() {
        Module base = Object.class.getModule();
        Module classPath = JournalJvmFlags.class.getClassLoader().getUnnamedModule();
        List<String> missing = new ArrayList<>();
        if (!base.isOpen("java.lang.reflect", classPath)) {
            missing.add("--add-opens=java.base/java.lang.reflect=ALL-UNNAMED");
        }
        for (String pkg : List.of("sun.nio.ch", "jdk.internal.ref")) {
            if (!base.isExported(pkg, classPath)) {
                missing.add("--add-exports=java.base/" + pkg + "=ALL-UNNAMED");
            }
        }
        return missing;
    }
}
