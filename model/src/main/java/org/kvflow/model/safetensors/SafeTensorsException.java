package org.kvflow.model.safetensors;

/** A weights file that cannot be used, naming the file and, where one is at fault, the tensor. */
public final class SafeTensorsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An unusable file.
     *
     * @param message what is wrong, naming the file and the tensor
     */
    public SafeTensorsException(String message) {
        super(message);
    }

    /**
     * A file that could not be read or parsed.
     *
     * @param message what is wrong, naming the file
     * @param cause   the I/O or parse failure
     */
    public SafeTensorsException(String message, Throwable cause) {
        super(message, cause);
    }
}
