package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A decode server's child JVM keeps its temporary files in a folder of its own, and closing it leaves neither the child nor the folder. */
class DecodeServerProcessTest {
    /** A stand-in decode server that extracts a "native library" into its temporary folder as jucx does, then listens. */
    static final class ExtractingServer {
        public static void main(String[] args) throws Exception {
            Path lib = Files.createTempDirectory("jucx");
            Files.writeString(lib.resolve("libjucx.so"), "native code");
            lib.toFile().deleteOnExit(); // what jucx asks for; a killed JVM never does it
            System.out.println("LISTENING 7");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** A stand-in that listens on the port its system property {@code kvflow.test.port} names. */
    static final class PropertyServer {
        public static void main(String[] args) throws Exception {
            System.out.println("LISTENING " + System.getProperty("kvflow.test.port"));
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** A stand-in that fails before it listens. */
    static final class FailingServer {
        public static void main(String[] args) {
            System.err.println("first words");
            System.err.println("kvflow: decode-server: no room for 4 pages");
            System.exit(3);
        }
    }

    @Test
    void whatTheChildExtractsLiesInItsOwnFolderAndGoesWithIt() throws Exception {
        DecodeServerProcess child = DecodeServerProcess.start(ExtractingServer.class, "64m", 0, 4, 64, null);
        Path scratch = child.scratch();
        try {
            assertThat(child.port()).isEqualTo(7);
            assertThat(scratch.getFileName().toString()).startsWith("kvflow-decode-");
            try (Stream<Path> files = Files.walk(scratch)) {
                assertThat(files.map(p -> p.getFileName().toString())).as("the child's java.io.tmpdir is the scratch folder").contains("libjucx.so");
            }
            assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive)).as("the child runs").isEqualTo(Optional.of(true));
        } finally {
            child.close();
        }
        assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive)).as("closing ended the child").isNotEqualTo(Optional.of(true));
        assertThat(scratch).as("the scratch folder, with what the killed child extracted").doesNotExist();
    }

    @Test
    void aKilledChildIsGoneAndItsFolderStaysUntilClose() throws Exception {
        DecodeServerProcess child = DecodeServerProcess.start(ExtractingServer.class, "64m", 0, 4, 64, null);
        try {
            child.kill();
            assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive)).as("killed").isNotEqualTo(Optional.of(true));
            assertThat(child.scratch()).as("a killed child's folder stays until close").isDirectory();
        } finally {
            child.close();
        }
        assertThat(child.scratch()).doesNotExist();
    }

    @Test
    void theChildGetsTheSystemPropertiesItIsGiven() throws Exception {
        try (DecodeServerProcess child = DecodeServerProcess.start(PropertyServer.class, "64m", Map.of("kvflow.test.port", "4321"), 0, 4, 64, null)) {
            assertThat(child.port()).isEqualTo(4321);
        }
    }

    @Test
    void aChildThatDoesNotStartIsNamedWithItsLastErrorLineAndLeavesNoFolder() throws Exception {
        Set<Path> before = scratchFolders();
        assertThatThrownBy(() -> DecodeServerProcess.start(FailingServer.class, "64m", 0, 4, 64, null))
                .isInstanceOf(IOException.class)
                .hasMessage("the decode process FailingServer did not start (said null); its last error line: kvflow: decode-server: no room for 4 pages");
        assertThat(scratchFolders()).isEqualTo(before);
    }

    private static Set<Path> scratchFolders() throws IOException {
        try (Stream<Path> list = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return list.filter(p -> p.getFileName().toString().startsWith("kvflow-decode-")).collect(Collectors.toSet());
        }
    }
}
