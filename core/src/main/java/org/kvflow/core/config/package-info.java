/**
 * {@code CpSharedKvConfig}, its JSON/YAML form (the field names of docs/scenario-format.md) and the startup validation matrix of contract §10.
 */
@NullMarked
package org.kvflow.core.config;

import org.jspecify.annotations.NullMarked;
