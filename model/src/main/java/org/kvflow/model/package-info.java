/**
 * The model plug-in: {@link org.kvflow.model.KvModel} and what it makes per run, a
 * {@link org.kvflow.model.KvProducer} of a chunk's key floats and a
 * {@link org.kvflow.model.KvConsumer} that attends over a {@link org.kvflow.model.LayerView};
 * {@link org.kvflow.model.ModelFit} checks a model against a config.
 */
@NullMarked
package org.kvflow.model;

import org.jspecify.annotations.NullMarked;
