/**
 * CP ranks as processes (SGLang runs one process per GPU): {@link org.kvflow.ranks.RankProcessMain}
 * is the JVM of one rank, which owns that rank's pools in its page memory and exports them;
 * {@link org.kvflow.ranks.RankProcesses} is the coordinator's side, which starts the ranks, talks to
 * them over reactor-netty ({@link org.kvflow.ranks.RankChannel}) and opens their pools in place, so
 * that a view is gathered from peer pointers with the same kernel as from pools of its own process.
 */
@NullMarked
package org.kvflow.ranks;

import org.jspecify.annotations.NullMarked;
