// Parallel loops (world.threads): OpenMP pragmas when the build has OpenMP, plain loops without.
//
// Every loop marked with these macros must give bit-identical results for every thread count:
// each iteration writes only its own item's data (its body, its slot of an output array), reads
// nothing another iteration writes, allocates only through tc_alloc (thread-safe with the default
// allocator), and calls neither tc_log nor tc_error_set. Anything order-dependent (appending to a
// world array, summing) happens after the loop, in index order. docs/pipeline.md lists the loops.
#ifndef TC_PARALLEL_H
#define TC_PARALLEL_H

#if defined(_OPENMP)
#define TC_PRAGMA_(text) _Pragma(#text)
/// Runs the next `for` loop on `threads` threads (an int expression; 1 or less: the calling
/// thread alone, no team). For a few heavy items of unequal cost (bodies): each thread takes the
/// next item when it is done, which balances the load and cannot change any result.
#define TC_PARALLEL_FOR(threads) TC_PRAGMA_(omp parallel for schedule(dynamic, 1) num_threads(threads) if ((threads) > 1))
/// As TC_PARALLEL_FOR, for many light items (rigid bodies, body pairs): runs of items, long
/// first, shorter towards the end (guided), so a thread the machine holds up delays little.
#define TC_PARALLEL_FOR_BLOCKS(threads) TC_PRAGMA_(omp parallel for schedule(guided) num_threads(threads) if ((threads) > 1))
#else
// Without OpenMP the loop runs on the calling thread; the count is evaluated and dropped (so
// the variable holding it is not unused). Hence: a macro line of its own, right before the
// `for`, inside a block.
#define TC_PARALLEL_FOR(threads) (void)(threads);
#define TC_PARALLEL_FOR_BLOCKS(threads) (void)(threads);
#endif

#include <stdbool.h>

/// True when the library was built with OpenMP (world.threads > 1 then runs loops in parallel;
/// without it every loop runs on the calling thread, with the same results).
bool tc_parallel_enabled(void);

/// The threads worth starting for `items` independent items with `threads` allowed: never more
/// than the items (an idle thread still costs a wake-up), at least 1.
static inline int tc_parallel_width(int threads, int items) {
    int n = threads < items ? threads : items;
    return n > 1 ? n : 1;
}

#endif
