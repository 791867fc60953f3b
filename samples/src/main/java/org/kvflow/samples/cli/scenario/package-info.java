/**
 * The scenario kinds of {@code kvflow simulate}, exactly as docs/scenario-format.md defines them: each
 * reads its fields strictly and answers with one JSON object computed by the library's pure stages.
 */
@NullMarked
package org.kvflow.samples.cli.scenario;

import org.jspecify.annotations.NullMarked;
