/**
 * Small programs that show kvflow in use: compose a pipeline with the DSL, stream with
 * backpressure, replay a journal in a fresh process and serve prefix hits from it.
 */
@NullMarked
package org.kvflow.samples;

import org.jspecify.annotations.NullMarked;
