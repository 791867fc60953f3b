package org.kvflow.transport.ucx;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.kvflow.pages.HostAddresses;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.MissingCapabilityException;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageStore;
import org.kvflow.transport.tcp.PageLanding;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * The decode side of the {@code ucx} engine: the decode pool's buffers (host memory at fixed
 * addresses, {@link HostAddresses}) registered with UCX once, and a worker progressed by a thread
 * of its own so that puts arriving over UCX's TCP or shared-memory transports land while the decode
 * server serves its connections. What it describes to each client that chose {@code ucx} is the
 * worker's address and every buffer's address, length and remote key ({@link LandingDescription}).
 * UCX carries no TLS and checks no peer: any process that got the description can write into the
 * pool, so the decode server checks every placed page's CRC32C before it counts, and this engine is
 * for loopback or a fabric the operator trusts. Close it after the decode server.
 */
public final class UcxLanding implements PageLanding, AutoCloseable {
    private final UcpContext context;
    private final UcpWorker worker;
    private final List<UcpMemory> registered = new ArrayList<>();
    private final byte[] description;
    private final Thread progress;
    private volatile boolean closed;
    /** How long the progress thread keeps polling after the last event before it parks between turns. */
    private static final long SPIN_NANOS = 2_000_000;

    /**
     * Registers every buffer of {@code pool} and starts the worker's progress thread.
     *
     * @param pool the decode pool, in a memory whose buffers lie at fixed host addresses
     * @throws MissingCapabilityException if the pool's memory has no fixed host addresses ({@code native} has)
     */
    public UcxLanding(PageStore pool) {
        HostAddresses addresses = pool.memory().capability(HostAddresses.class).orElseThrow(() -> new MissingCapabilityException(
                pool.memory().name(), HostAddresses.class, "has no buffers at fixed host addresses for UCX to register (the native page memory has)"));
        this.context = new UcpContext(new UcpParams().requestRmaFeature());
        this.worker = context.newWorker(new UcpWorkerParams().requestThreadSafety());
        List<LandingDescription.Region> regions = new ArrayList<>();
        try {
            for (KvComponent component : KvComponent.values()) {
                for (int l = 0; l < pool.layers(); l++) {
                    PageBuffer buffer = pool.buffer(l, component);
                    UcpMemory memory = context.memoryMap(new UcpMemMapParams().setAddress(addresses.address(buffer)).setLength(buffer.bytes()));
                    registered.add(memory);
                    regions.add(new LandingDescription.Region(memory.getAddress(), memory.getLength(), bytes(memory.getRemoteKeyBuffer())));
                }
            }
        } catch (RuntimeException e) {
            release();
            throw e;
        }
        this.description = new LandingDescription(bytes(worker.getAddress()), regions).bytes();
        this.progress = Thread.ofPlatform().daemon().name("ucx landing progress").start(this::progressUntilClosed);
    }

    @Override
    public String engine() {
        return UcxEngine.NAME;
    }

    @Override
    public byte[] describe() {
        return description.clone();
    }

    /**
     * Progresses the worker: busily while puts arrive (UCX's TCP transport lands a put only as the
     * target's worker progresses), and once nothing came for {@link #SPIN_NANOS}, with a 50 µs park
     * between turns, so an idle landing costs little.
     */
    private void progressUntilClosed() {
        long lastEvent = System.nanoTime();
        while (!closed) {
            try {
                if (worker.progress() > 0) {
                    lastEvent = System.nanoTime();
                } else if (System.nanoTime() - lastEvent < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(50_000);
                }
            } catch (Exception e) {
                if (!closed) {
                    LockSupport.parkNanos(1_000_000);
                }
            }
        }
    }

    /** Stops the progress thread, deregisters the pool and closes the worker and the context; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            progress.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        release();
    }

    private void release() {
        for (UcpMemory m : registered) {
            m.deregister();
        }
        registered.clear();
        worker.close();
        context.close();
    }

    static byte[] bytes(ByteBuffer buffer) {
        byte[] b = new byte[buffer.remaining()];
        buffer.duplicate().get(b);
        return b;
    }
}
