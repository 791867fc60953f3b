/**
 * Real traffic through the pipeline: traces in the Mooncake format ({@link org.kvflow.traffic.TraceFile}),
 * prompts derived from their block hashes ({@link org.kvflow.traffic.TraceTokens}), the ideal prefix
 * hits ({@link org.kvflow.traffic.IdealHits}) and a replay of both layouts ({@link org.kvflow.traffic.TraceReplay}).
 */
@NullMarked
package org.kvflow.traffic;

import org.jspecify.annotations.NullMarked;
