package org.kvflow.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * A file descriptor of another process, duplicated into this one with {@code pidfd_open} and
 * {@code pidfd_getfd} (Linux 5.6+), through the JDK's foreign-function API: how a rank's
 * shareable device allocation (a POSIX descriptor from {@code cuMemExportToShareableHandle}) reaches
 * the coordinator without a socket. The kernel allows it for a process this one may trace, such as
 * its own child.
 */
final class Descriptors {
    private static final long SYS_PIDFD_OPEN = 434;
    private static final long SYS_PIDFD_GETFD = 438;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SYSCALL3 = LINKER.downcallHandle(LINKER.defaultLookup().find("syscall").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(1));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private Descriptors() {}

    /**
     * A new descriptor in this process for descriptor {@code fd} of process {@code pid}.
     *
     * @throws IllegalStateException naming the call and errno when the kernel refuses
     */
    static int fromProcess(long pid, int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            long pidfd = (long) SYSCALL3.invokeExact(state, SYS_PIDFD_OPEN, pid, 0L, 0L);
            if (pidfd < 0) {
                throw new IllegalStateException("pidfd_open(" + pid + ") failed, errno " + (int) ERRNO.get(state, 0L));
            }
            try {
                long local = (long) SYSCALL3.invokeExact(state, SYS_PIDFD_GETFD, pidfd, (long) fd, 0L);
                if (local < 0) {
                    throw new IllegalStateException("pidfd_getfd(process " + pid + ", fd " + fd + ") failed, errno " + (int) ERRNO.get(state, 0L));
                }
                return (int) local;
            } finally {
                close((int) pidfd);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("a system call failed", e);
        }
    }

    /** Closes descriptor {@code fd} of this process. */
    static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            throw new IllegalStateException("close(" + fd + ") failed", e);
        }
    }
}
