/**
 * The receiving side of PD transfer (contract §8): a non-CP decode instance's page pool and KV
 * store, one session per request, and the checks that keep a page from landing anywhere but its
 * request's decode page for its logical position. Transports (in-process, TCP) deliver into it.
 */
@NullMarked
package org.kvflow.decode;

import org.jspecify.annotations.NullMarked;
