package org.kvflow.dsl;

/** Factories for the admission stage. */
public final class Admission {
    private Admission() {}

    /**
     * The PrefillAdder gate with a waiting queue of 64 requests and the config's caps.
     *
     * @return the stage; {@link AdmitSpec} narrows the queue and the caps
     */
    public static AdmitSpec batchGate() {
        return new AdmitSpec(64, null, null);
    }
}
