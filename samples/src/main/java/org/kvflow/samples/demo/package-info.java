/**
 * The embedded demo behind {@code kvflow demo}: a CP8 shared-KV pipeline on a GLM-5-like
 * synthetic NSA/MLA model streaming a few hundred requests to a decode process over TCP, with a
 * HiCache journal, checked against a replicated-CP run of the same requests.
 */
@NullMarked
package org.kvflow.samples.demo;

import org.jspecify.annotations.NullMarked;
