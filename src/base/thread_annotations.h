// Clang's thread-safety annotations (-Wthread-safety): which lock guards a member, which locks a
// function needs held. They compile to nothing elsewhere; the ctest `style.thread_safety` runs
// the analysis with clang over the files that use them.
#ifndef GANTRY_BASE_THREAD_ANNOTATIONS_H_
#define GANTRY_BASE_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define GANTRY_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define GANTRY_THREAD_ANNOTATION(x)
#endif

// On a class: it is a lock.
#define GANTRY_CAPABILITY(name) GANTRY_THREAD_ANNOTATION(capability(name))
// On a class: an object that holds a lock for its lifetime (or until it releases it).
#define GANTRY_SCOPED_CAPABILITY GANTRY_THREAD_ANNOTATION(scoped_lockable)
// On a member: read with `mu` held (shared is enough), written with it held exclusively.
#define GANTRY_GUARDED_BY(mu) GANTRY_THREAD_ANNOTATION(guarded_by(mu))
// On a function: the caller holds these exclusively / at least shared.
#define GANTRY_REQUIRES(...) GANTRY_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define GANTRY_REQUIRES_SHARED(...) \
  GANTRY_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
// On a function: it takes / gives back these (none named: the object itself).
#define GANTRY_ACQUIRE(...) GANTRY_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define GANTRY_ACQUIRE_SHARED(...) GANTRY_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define GANTRY_RELEASE(...) GANTRY_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define GANTRY_RELEASE_SHARED(...) GANTRY_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define GANTRY_RELEASE_GENERIC(...) \
  GANTRY_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define GANTRY_TRY_ACQUIRE(...) GANTRY_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define GANTRY_TRY_ACQUIRE_SHARED(...) \
  GANTRY_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))
// On a function: the caller must not hold these (it takes them itself).
#define GANTRY_EXCLUDES(...) GANTRY_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// On a function whose locking the analysis cannot follow (it says why in a comment).
#define GANTRY_NO_THREAD_SAFETY_ANALYSIS GANTRY_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // GANTRY_BASE_THREAD_ANNOTATIONS_H_
