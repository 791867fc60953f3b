/**
 * Page ownership and address mapping (contract §4): owner, local page, local row, shared row, their inverse, and the request page table.
 */
@NullMarked
package org.kvflow.core.ownership;

import org.jspecify.annotations.NullMarked;
