/**
 * HiCache backup as pipeline stages (contract §11): the backup stage that journals finished requests'
 * pages by write policy, and a {@code Flux} source that replays a journal. The journal's blocking
 * calls run on {@code Schedulers.boundedElastic()}, never on a Reactor parallel thread.
 */
@NullMarked
package org.kvflow.operators.backup;

import org.jspecify.annotations.NullMarked;
