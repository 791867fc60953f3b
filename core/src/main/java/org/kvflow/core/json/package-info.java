/**
 * Strict reading of JSON/YAML trees: unknown fields, wrong types, nulls and out-of-range numbers are reported with the JSON path of the offending field.
 */
@NullMarked
package org.kvflow.core.json;

import org.jspecify.annotations.NullMarked;
