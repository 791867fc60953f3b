package org.kvflow.dsl;

/** One stage of a flow: immutable data, checked again by {@link PrefillFlow#build()}. */
public sealed interface StageSpec permits AdmitSpec, SplitSpec, OwnSpec, MaterializeSpec, BackupSpec, TransferSpec {
    /** The stage's name in {@code describe()} and in build problems. */
    String stage();

    /** Position in the required order (SPEC §13): admit 0, split 1, own 2, materialize 3, backup/transfer 4. */
    int rank();
}
