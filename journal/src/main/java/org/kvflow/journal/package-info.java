/**
 * The HiCache backup journal (contract §11.4) on Chronicle Queue: a blocking appender that records
 * every backed-up page, host eviction and checkpoint, and a replayer that rebuilds a host page
 * cache from it after a restart, verifying every record. The only module that imports
 * {@code net.openhft}; no Reactor here.
 */
@NullMarked
package org.kvflow.journal;

import org.jspecify.annotations.NullMarked;
