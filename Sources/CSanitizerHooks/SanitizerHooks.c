#include "CSanitizerHooks.h"

// Weak: resolved only when the ThreadSanitizer runtime is linked in (swift build
// --sanitize=thread), null in every other build.
extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));

void badge_sanitizer_acquire(void *address) {
    if (__tsan_acquire) __tsan_acquire(address);
}

void badge_sanitizer_release(void *address) {
    if (__tsan_release) __tsan_release(address);
}
