// Whether the parallel loops of core/parallel.h are real in this build.
#include "core/parallel.h"

bool tc_parallel_enabled(void) {
#if defined(_OPENMP)
    return true;
#else
    return false;
#endif
}
