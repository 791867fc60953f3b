/**
 * Rows between page stores and kernel arrays: the row geometry of a KV layout, computed rows
 * stored into the owners' pages and keys read out of a view in place on the device (the
 * {@link org.kvflow.kernels.rows.DeviceRowAccess} capability of a page memory), and the page
 * memory a kernel device's pools live in.
 */
@NullMarked
package org.kvflow.kernels.rows;

import org.jspecify.annotations.NullMarked;
