/** The domain without bytes: layouts, pools, ownership, split, validation, config, page hashes. */
module org.kvflow.core {
    requires transitive org.jspecify;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires java.management;

    exports org.kvflow.core;
    exports org.kvflow.core.config;
    exports org.kvflow.core.hicache;
    exports org.kvflow.core.model;
    exports org.kvflow.core.ownership;
    exports org.kvflow.core.pool;
    exports org.kvflow.core.split;
    exports org.kvflow.core.validate;
    // strict JSON reading: for the modules that read kvflow's own JSON, not an API
    exports org.kvflow.core.json to org.kvflow.journal, org.kvflow.ranks, org.kvflow.traffic;
}
