/** A soak of the whole system through its public API: many runs, cancels, decode servers that go away and come back. */
@NullMarked
package org.kvflow.bench.soak;

import org.jspecify.annotations.NullMarked;
