package org.kvflow.dsl;

/**
 * One stage of a flow: immutable data, checked again by {@link PrefillFlow#build()}. The stages
 * run in the order the flow names them; {@link #rank()} is the order they can run in.
 */
public sealed interface StageSpec permits AdmitSpec, SplitSpec, OwnSpec, WriteSpec, MaterializeSpec, BackupSpec, TransferSpec {
    /**
     * The stage's name.
     *
     * @return the name {@code describe()} and build problems use ({@code admit}, {@code split}, …)
     */
    String stage();

    /**
     * Where the stage stands in the only order that can run (contract §13).
     *
     * @return 0 for admit, then split, own, write, materialize, backup, 6 for transfer
     */
    int rank();
}
