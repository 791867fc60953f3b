package org.kvflow.dsl;

/**
 * One stage of a flow: immutable data, checked again by {@link PrefillFlow#build()}. The stages
 * run in the order the flow names them; {@link #rank()} is the order they can run in.
 */
public sealed interface StageSpec permits AdmitSpec, SplitSpec, OwnSpec, WriteSpec, MaterializeSpec, BackupSpec, TransferSpec {
    /** The stage's name in {@code describe()} and in build problems. */
    String stage();

    /** Position in the only order that can run (SPEC §13): admit, split, own, write, materialize, backup, transfer. */
    int rank();
}
