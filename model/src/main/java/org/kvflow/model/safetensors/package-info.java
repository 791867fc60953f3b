/** Reading model weights from safetensors files: a JSON header and a memory-mapped little-endian payload. */
@NullMarked
package org.kvflow.model.safetensors;

import org.jspecify.annotations.NullMarked;
