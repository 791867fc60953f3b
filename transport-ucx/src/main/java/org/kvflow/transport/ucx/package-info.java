/**
 * The {@code ucx} PD transfer engine: page bytes put one-sided into a decode pool registered with
 * UCX (jucx), under the tcp transport's handshake, requests and CRC checks.
 */
@NullMarked
package org.kvflow.transport.ucx;

import org.jspecify.annotations.NullMarked;
