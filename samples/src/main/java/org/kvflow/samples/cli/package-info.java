/**
 * The {@code kvflow} command line (picocli): {@code simulate}, {@code validate-config} and
 * {@code ownership}. Results go to stdout, everything else to stderr; exit 0 when the command ran,
 * 2 for malformed input (one line {@code kvflow: <field>: <reason>}), 1 for an internal failure.
 */
@NullMarked
package org.kvflow.samples.cli;

import org.jspecify.annotations.NullMarked;
