/**
 * Hand-written CUDA page copies launched through JCuda's driver API, registered as a PageCopier through ServiceLoader. The only module that imports jcuda. Filled by the cuda-fallback issue.
 */
@NullMarked
package org.kvflow.cuda;

import org.jspecify.annotations.NullMarked;
