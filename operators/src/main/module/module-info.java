/** The prefill pipeline: page accounting and the Reactor stages. */
module org.kvflow.operators {
    requires transitive org.kvflow.model;
    requires transitive org.kvflow.journal;
    requires transitive org.kvflow.transfer;
    requires org.reactivestreams;
    requires org.slf4j;

    exports org.kvflow.operators;
    exports org.kvflow.operators.admission;
    exports org.kvflow.operators.materialize;
    exports org.kvflow.operators.transfer;
    // the stages one by one and their chain: composed by the DSL, not by users
    exports org.kvflow.operators.backup to org.kvflow.dsl;
    exports org.kvflow.operators.group to org.kvflow.dsl;
    exports org.kvflow.operators.pipeline to org.kvflow.dsl;
    exports org.kvflow.operators.shard to org.kvflow.dsl;
    exports org.kvflow.operators.split to org.kvflow.dsl;
}
