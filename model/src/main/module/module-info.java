/** The model plug-in: what computes a layer's KV rows and attends over the view; the synthetic model; safetensors weights. */
module org.kvflow.model {
    requires transitive org.kvflow.kernels;
    requires com.fasterxml.jackson.databind;

    exports org.kvflow.model;
    exports org.kvflow.model.safetensors;
    exports org.kvflow.model.synthetic;
}
