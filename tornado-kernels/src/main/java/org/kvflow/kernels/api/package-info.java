/**
 * The kernel API, shaped like TornadoVM's (docs/decisions.md, D16): a {@link org.kvflow.kernels.api.TaskGraph}
 * of tasks over wrapped primitive arrays with data-transfer modes, frozen into an
 * {@link org.kvflow.kernels.api.ImmutableTaskGraph} and run by an
 * {@link org.kvflow.kernels.api.ExecutionPlan} on an explicitly chosen {@link org.kvflow.kernels.api.Device}.
 * Backends implement {@link org.kvflow.kernels.api.KernelBackend}; callers never name one.
 */
@NullMarked
package org.kvflow.kernels.api;

import org.jspecify.annotations.NullMarked;
