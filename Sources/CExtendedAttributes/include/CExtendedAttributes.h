#ifndef C_EXTENDED_ATTRIBUTES_H
#define C_EXTENDED_ATTRIBUTES_H

// getxattr(2), which Glibc's Swift module leaves out: the CLI reads a secret file's POSIX ACL
// (system.posix_acl_access) to judge who may read it.
#include <sys/xattr.h>

#endif
