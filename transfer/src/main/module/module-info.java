/** The PD transfer seam: the transport SPI, the in-process backend and the decode receiver. */
module org.kvflow.transfer {
    requires transitive org.kvflow.pages;
    requires transitive reactor.core;

    exports org.kvflow.transfer;
    exports org.kvflow.decode;

    uses org.kvflow.transfer.TransferEngine;
}
