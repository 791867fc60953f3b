/**
 * DeepSeek V3.2's attention path (MLA with the lightning indexer) as a {@link org.kvflow.model.KvModel},
 * read from safetensors weights: {@link org.kvflow.deepseek.V32Model}.
 */
@NullMarked
package org.kvflow.deepseek;

import org.jspecify.annotations.NullMarked;
