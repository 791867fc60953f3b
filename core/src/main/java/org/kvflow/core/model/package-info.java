/**
 * Model constants and byte layouts of the MLA latent KV and the NSA indexer K cache (contract §3.1–§3.3).
 */
@NullMarked
package org.kvflow.core.model;

import org.jspecify.annotations.NullMarked;
