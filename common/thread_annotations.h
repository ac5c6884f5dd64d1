#pragma once
// Clang thread-safety analysis attributes (no-ops on other compilers). Build with
// CXX=clang++ -Dcpp_args=-Wthread-safety to have clang check GUARDED_BY / REQUIRES.

#if defined(__clang__)
#define MINNOW_TSA(x) __attribute__((x))
#else
#define MINNOW_TSA(x)
#endif

#define CAPABILITY(x) MINNOW_TSA(capability(x))
#define SCOPED_CAPABILITY MINNOW_TSA(scoped_lockable)
#define GUARDED_BY(x) MINNOW_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) MINNOW_TSA(pt_guarded_by(x))
#define REQUIRES(...) MINNOW_TSA(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) MINNOW_TSA(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) MINNOW_TSA(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) MINNOW_TSA(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) MINNOW_TSA(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) MINNOW_TSA(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) MINNOW_TSA(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) MINNOW_TSA(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) MINNOW_TSA(try_acquire_shared_capability(__VA_ARGS__))
#define EXCLUDES(...) MINNOW_TSA(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS MINNOW_TSA(no_thread_safety_analysis)
