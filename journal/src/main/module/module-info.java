/** The Chronicle Queue HiCache journal: append, read, replay, damage handling. */
module org.kvflow.journal {
    requires transitive org.kvflow.core;
    requires chronicle.queue;
    requires chronicle.wire;
    requires chronicle.bytes;
    requires chronicle.core;
    requires com.fasterxml.jackson.databind;

    exports org.kvflow.journal;
    exports org.kvflow.journal.record;
    exports org.kvflow.journal.replay;
}
