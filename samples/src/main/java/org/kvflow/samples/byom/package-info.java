/** Sample: a user-written model (its own kernels through the kernel API) plugged into a flow. */
@NullMarked
package org.kvflow.samples.byom;

import org.jspecify.annotations.NullMarked;
