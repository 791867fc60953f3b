package org.kvflow.model;

import java.util.ArrayList;
import java.util.List;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/**
 * Whether a model's rows fit a config: the KV dtype, the attention kind, the widths the kind fixes
 * (latent 512, rope 64, index 128 for {@code nsa-mla}) and the page size the kind allows (64 for
 * {@code nsa-mla}, a power of two otherwise). A model without bytes fits every config.
 */
public final class ModelFit {
    private static final ModelShape NSA = ModelShape.DEEPSEEK_V32;

    private ModelFit() {}

    /**
     * Every mismatch between {@code model} and {@code config}, one line each naming the field.
     *
     * @param model  the model
     * @param config the config
     * @return the mismatches; empty when the model fits
     */
    public static List<String> problems(KvModel model, CpSharedKvConfig config) {
        List<String> problems = new ArrayList<>();
        if (!model.storesBytes()) {
            return problems;
        }
        KvLayout layout = model.layout();
        ModelShape shape = layout.shape();
        String who = "model " + model.name() + ": ";
        if (layout.dtype() != config.kvDtype()) {
            problems.add(who + "kvDtype " + layout.dtype().wireName() + " but the config's kvDtype is " + config.kvDtype().wireName());
        }
        if (shape.kind() != config.model()) {
            problems.add(who + "kind " + shape.kind().wireName() + " but the config's model is " + config.model().wireName());
        }
        if (config.model() == ModelKind.NSA_MLA) {
            width(problems, who, "latent", shape.latentDim(), NSA.latentDim());
            width(problems, who, "rope", shape.ropeDim(), NSA.ropeDim());
            width(problems, who, "index", shape.indexDim(), NSA.indexDim());
        }
        if (shape.kind() == ModelKind.NSA_MLA && config.pageSize() != 64) {
            problems.add(who + "nsa-mla rows are stored in pages of 64 tokens, but the config's pageSize is " + config.pageSize());
        } else if (shape.kind() != ModelKind.NSA_MLA && Integer.bitCount(config.pageSize()) != 1) {
            problems.add(who + shape.kind().wireName() + " rows need a power-of-two pageSize, not " + config.pageSize());
        }
        return problems;
    }

    private static void width(List<String> problems, String who, String part, int width, int expected) {
        if (width != expected) {
            problems.add(who + part + " width " + width + " but nsa-mla rows have " + expected);
        }
    }
}
