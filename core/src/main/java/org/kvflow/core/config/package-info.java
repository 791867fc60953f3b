/**
 * {@code CpSharedKvConfig}, its JSON/YAML form (the field names of SCENARIO-FORMAT.md) and the startup validation matrix of SPEC §10.
 */
@NullMarked
package org.kvflow.core.config;

import org.jspecify.annotations.NullMarked;
