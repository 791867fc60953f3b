/** The plain-Java kernel backend: runs each task's reference method on the calling thread. */
@NullMarked
package org.kvflow.kernels.java;

import org.jspecify.annotations.NullMarked;
