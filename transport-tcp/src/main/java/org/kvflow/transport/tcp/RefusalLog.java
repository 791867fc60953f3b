package org.kvflow.transport.tcp;

import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The decode server's record of what it refused: one line per refused frame or connection (peer,
 * code, reason), at most {@code perSecond} lines a second, so a peer cannot flood the log; the
 * next line written says how many were held back. Counts every refusal and keeps the last
 * {@value #RECENT} of them, logged or held back, for {@link DecodeServer#recentRefusals()}. A line
 * is cut at {@value #LINE_CHARS} characters (a reason may quote what the peer sent, up to a frame's
 * size), so the log and what is kept stay small. Thread-safe.
 */
final class RefusalLog {
    /** How many of the latest refusals {@link #recent()} keeps. */
    static final int RECENT = 32;
    /** The longest line logged or kept, in characters; a longer one ends with how long it was. */
    static final int LINE_CHARS = 512;
    private final ArrayDeque<String> recent = new ArrayDeque<>(RECENT);
    private final Consumer<String> sink;
    private final int perSecond;
    private final LongSupplier nanoTime;
    private long windowStart;
    private int inWindow;
    private long heldBack;
    private long total;

    RefusalLog(Consumer<String> sink, int perSecond, LongSupplier nanoTime) {
        this.sink = sink;
        this.perSecond = perSecond;
        this.nanoTime = nanoTime;
        this.windowStart = nanoTime.getAsLong();
    }

    synchronized void refused(String peer, String code, String reason) {
        total++;
        String line = cut("decode server refused " + code + " from " + peer + ": " + reason);
        if (recent.size() == RECENT) {
            recent.removeFirst();
        }
        recent.addLast(line);
        long now = nanoTime.getAsLong();
        if (now - windowStart >= 1_000_000_000L) {
            windowStart = now;
            inWindow = 0;
        }
        if (inWindow >= perSecond) {
            heldBack++;
            return;
        }
        inWindow++;
        String held = heldBack == 0 ? "" : " (" + heldBack + " refusals before this one not logged)";
        heldBack = 0;
        sink.accept(line + held);
    }

    private static String cut(String line) {
        return line.length() <= LINE_CHARS ? line : line.substring(0, LINE_CHARS) + "… (" + line.length() + " characters)";
    }

    /** {@return the latest refusals, oldest first, at most {@value #RECENT}} */
    synchronized List<String> recent() {
        return List.copyOf(recent);
    }

    /** Refusals since start, logged or not. */
    synchronized long total() {
        return total;
    }
}
