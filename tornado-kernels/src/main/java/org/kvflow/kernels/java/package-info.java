/** The plain-Java kernel backend: runs each task's reference method (parallel over its outer index). */
@NullMarked
package org.kvflow.kernels.java;

import org.jspecify.annotations.NullMarked;
