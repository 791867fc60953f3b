/** DeepSeek V3.2's attention path as a kvflow model: MLA over 576-wide latent rows and the lightning indexer. */
module org.kvflow.deepseek {
    requires transitive org.kvflow.model;

    exports org.kvflow.deepseek;
}
