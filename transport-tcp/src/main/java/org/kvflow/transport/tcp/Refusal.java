package org.kvflow.transport.tcp;

/** A frame the decode server refuses with a protocol code; the message goes to the peer and the log. */
final class Refusal extends RuntimeException {
    final String code;

    Refusal(String code, String message) {
        super(message, null, false, false);
        this.code = code;
    }
}
