/**
 * Replay of a journal into a bounded host page cache (contract §11.4): from the start, an index or a
 * time; checksums, versions and payload lengths verified; corrupt records reported by index and
 * skipped or fatal as configured.
 */
@NullMarked
package org.kvflow.journal.replay;

import org.jspecify.annotations.NullMarked;
