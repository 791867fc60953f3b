/** The fluent pipeline DSL: KvFlow.prefill(config)…build(), and the pipeline's meters. */
module org.kvflow.dsl {
    requires transitive org.kvflow.operators;
    requires micrometer.core;
    requires org.slf4j;

    exports org.kvflow.dsl;
}
