// The target is header-only (ct_opaque_u64 must inline into its Swift callers); SwiftPM needs
// one source file to build a C target.
#include "ConstantTime.h"
