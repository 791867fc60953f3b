package org.kvflow.pages;

/** Where a page buffer's bytes live. */
public enum Residency {
    /** A Java byte array. */
    HEAP,
    /** Accelerator memory. */
    DEVICE,
    /** Page-locked host memory the accelerator reaches by DMA. */
    PINNED_HOST,
    /** Host memory off the Java heap at fixed addresses, which a transfer engine can register (UCX). */
    NATIVE_HOST,
    /** Another process's memory, reached by staged copies over a connection. */
    REMOTE
}
