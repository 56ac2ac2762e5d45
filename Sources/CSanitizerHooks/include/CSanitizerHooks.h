#ifndef C_SANITIZER_HOOKS_H
#define C_SANITIZER_HOOKS_H

/// Tells ThreadSanitizer, when the process runs under it, that the lock at `address` was just
/// taken (acquire) or is about to be let go (release); does nothing otherwise. The standard
/// `Mutex` locks with atomics and futex calls ThreadSanitizer does not see.
void badge_sanitizer_acquire(void *address);
void badge_sanitizer_release(void *address);

#endif
