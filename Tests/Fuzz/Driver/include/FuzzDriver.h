#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

/// Runs libFuzzer's driver (fuzzing, merging, replaying: whatever the arguments say) over
/// LLVMFuzzerTestOneInput, which FuzzSupport defines. SwiftPM renames an executable's `main`,
/// so libFuzzer's own `main` is never linked: each harness's main.swift calls this instead.
int fuzz_driver_main(int argc, char **argv);

#endif
