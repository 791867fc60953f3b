/**
 * HiCache page keys: the chained SHA-256 page hashes of contract §11.1.
 */
@NullMarked
package org.kvflow.core.hicache;

import org.jspecify.annotations.NullMarked;
