package org.kvflow.deepseek;

/**
 * What attention gave a block of queries: each query's output row ({@code hidden} floats) and the
 * key positions its indexer selected, ascending.
 *
 * @param out      one output row per query
 * @param selected one selection per query
 */
public record Attended(float[][] out, int[][] selected) {}
