package org.kvflow.cuda;

import org.kvflow.core.KvflowException;

/** A CUDA launch or memory operation failed; names the operation and the pages involved. */
public final class CudaCopyException extends KvflowException {
    public CudaCopyException(String operation, Throwable cause) {
        super(operation + " failed: " + cause.getMessage(), cause);
    }

    /** A driver call that returned {@code result} (a {@code CUresult} other than success). */
    public CudaCopyException(String operation, int result) {
        super(operation + " failed with CUresult " + result);
    }
}
