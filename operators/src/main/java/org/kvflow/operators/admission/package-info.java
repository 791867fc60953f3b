/**
 * Prefill admission (contract §6): the pure PrefillAdder pass with the bs>1 gate and caps, and the Reactor stage that applies it with backpressure on free pages.
 */
@NullMarked
package org.kvflow.operators.admission;

import org.jspecify.annotations.NullMarked;
