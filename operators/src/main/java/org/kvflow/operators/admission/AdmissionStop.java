package org.kvflow.operators.admission;

/** Why an admission pass stopped (contract §6.1, pass rule (a)). */
public enum AdmissionStop {
    /** Budget or gate: nothing more fits this batch, but memory is not the reason. */
    OTHER,
    /** Memory ({@code remTotal} / {@code curRem}) is exhausted. */
    NO_TOKEN,
    /** The queue ran out without another result. */
    END
}
