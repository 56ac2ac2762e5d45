#ifndef BADGE_CSPAWN_H
#define BADGE_CSPAWN_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34): the child closes every descriptor from
/// `from` on. glibc declares it only under _GNU_SOURCE, which the Swift Glibc module does not see.
int badge_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
