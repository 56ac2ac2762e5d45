#ifndef BADGE_CONSTANT_TIME_H
#define BADGE_CONSTANT_TIME_H

#include <stdint.h>

/// Returns `value` unchanged, but the optimiser cannot see through the empty assembly statement,
/// so it cannot prove that a mask is all ones or all zeros and turn a masked select back into
/// a branch on the secret it came from (which LLVM did to the table scans of BBS).
static inline __attribute__((always_inline)) uint64_t ct_opaque_u64(uint64_t value) {
    __asm__ volatile("" : "+r"(value));
    return value;
}

#endif
