package org.kvflow.transfer;

import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;

/**
 * What a built pipeline tells the parts it makes for each run (a transfer backend among them): the config's page size and CP
 * size, and the model's row layout (null when the flow plans pages only). Nobody restates them.
 *
 * @param pageSize tokens per page
 * @param cpSize   the CP size
 * @param layout   the KV row layout, or null without a model
 */
public record RunShape(int pageSize, int cpSize, @Nullable KvLayout layout) {
}
