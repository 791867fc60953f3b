/**
 * The HiCache backup journal on Chronicle Queue (SPEC §11.4): a blocking appender and replayer. The only module that imports net.openhft. Filled by the journal issue.
 */
@NullMarked
package org.kvflow.journal;

import org.jspecify.annotations.NullMarked;
