/**
 * Page-aligned token-index validation (SPEC §9), run before any copy of token-indexed pages.
 */
@NullMarked
package org.kvflow.core.validate;

import org.jspecify.annotations.NullMarked;
