package org.kvflow.pages;

/**
 * A capability of a memory whose buffers lie in host memory at fixed addresses for their whole
 * life ({@link NativePageMemory}): where a transfer engine registers them, or reads them in place.
 */
public interface HostAddresses {
    /**
     * The address of byte 0 of {@code buffer}; valid until the buffer is freed.
     *
     * @throws ForeignBufferException if this memory did not allocate {@code buffer} or has freed it
     */
    long address(PageBuffer buffer);
}
