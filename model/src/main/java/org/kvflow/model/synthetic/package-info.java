/** The synthetic one-head NSA/MLA model of seeded weights, as a {@link org.kvflow.model.KvModel}. */
@NullMarked
package org.kvflow.model.synthetic;

import org.jspecify.annotations.NullMarked;
