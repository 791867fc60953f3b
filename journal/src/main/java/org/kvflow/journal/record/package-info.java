/**
 * Journal records and their byte encoding: the fields of contract §11.4, little-endian, each record
 * closed by a CRC32C.
 */
@NullMarked
package org.kvflow.journal.record;

import org.jspecify.annotations.NullMarked;
