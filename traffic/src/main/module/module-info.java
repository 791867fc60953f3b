/** Public serving traces replayed through the prefill pipeline: shared KV beside replicated on the same per-rank budget. */
module org.kvflow.traffic {
    requires transitive org.kvflow.dsl;
    requires com.fasterxml.jackson.databind;
    requires reactor.core;

    exports org.kvflow.traffic;
}
