#ifndef BADGE_SERVICE_CSQLITE_SHIM_H
#define BADGE_SERVICE_CSQLITE_SHIM_H
#include <sqlite3.h>

/* Swift does not import the extended result code macros (they are expressions); these
   constants carry the header's own values so storage can classify constraint failures. */
static const int CSQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int CSQLITE_CONSTRAINT_ROWID = SQLITE_CONSTRAINT_ROWID;
static const int CSQLITE_CONSTRAINT_CHECK = SQLITE_CONSTRAINT_CHECK;
static const int CSQLITE_CONSTRAINT_NOTNULL = SQLITE_CONSTRAINT_NOTNULL;
static const int CSQLITE_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
#endif
