/**
 * The model every kvflow stage shares: byte layouts, pools, ownership, CP split, page-group
 * validation and configuration (contract §3–§5, §9, §10). Plain Java plus Jackson; no Reactor,
 * GPU or Chronicle code lives here.
 */
@NullMarked
package org.kvflow.core;

import org.jspecify.annotations.NullMarked;
