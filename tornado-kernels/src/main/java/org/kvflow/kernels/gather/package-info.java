/**
 * The page gather and scatter kernels that build a full view from owner pages and write pages back.
 */
@NullMarked
package org.kvflow.kernels.gather;

import org.jspecify.annotations.NullMarked;
