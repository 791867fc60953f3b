/**
 * Page-aligned token-index validation (contract §9), run before any copy of token-indexed pages.
 */
@NullMarked
package org.kvflow.core.validate;

import org.jspecify.annotations.NullMarked;
