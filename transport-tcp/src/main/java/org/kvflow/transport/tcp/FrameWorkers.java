package org.kvflow.transport.tcp;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where PAGES frames are built (client) and checked and copied into decode pages (server): on
 * workers of Reactor's bounded-elastic scheduler, so a connection's event loop only moves bytes,
 * or on the event loop itself. Workers pay where cores are to spare (one connection on the H200
 * host: 0.46-0.64 of a plain socket on the loops, 0.77-1.00 with workers) and cost where they are
 * not (two cores running both ends: 0.40-0.65 on the loops, 0.36-0.51 with workers), so by default
 * they are used with four cores or more. The system property {@value #PROPERTY} ({@code on},
 * {@code off} or {@code auto}) overrides that; it is read when a server starts or a client is built.
 */
final class FrameWorkers {
    /** The system property that chooses: {@code on}, {@code off} or {@code auto} (the default). */
    static final String PROPERTY = "kvflow.transfer.workers";
    /** Cores from which {@code auto} uses workers. */
    static final int AUTO_CORES = 4;

    private FrameWorkers() {}

    /**
     * The scheduler frames are handed to, as the property and the machine's cores say.
     *
     * @return bounded-elastic, or the immediate scheduler (the frame stays on the thread that has it)
     * @throws IllegalArgumentException if the property is set to anything but on, off or auto
     */
    static Scheduler scheduler() {
        String choice = System.getProperty(PROPERTY, "auto");
        boolean workers = switch (choice) {
            case "on" -> true;
            case "off" -> false;
            case "auto" -> Runtime.getRuntime().availableProcessors() >= AUTO_CORES;
            default -> throw new IllegalArgumentException(PROPERTY + " must be on, off or auto, was \"" + choice + "\"");
        };
        return workers ? Schedulers.boundedElastic() : Schedulers.immediate();
    }
}
