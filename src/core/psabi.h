// Included (inside `#if defined(__GNUC__)`) by the files whose GNU C vectors live only within
// always-inlined helpers: no vector crosses a call, so the compilers' note that the AVX calling
// convention differs from the baseline one does not apply and is silenced here.
#if defined(__clang__)
#if __has_warning("-Wpsabi")
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#else
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
