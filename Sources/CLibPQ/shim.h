#ifndef BADGE_SERVICE_CLIBPQ_SHIM_H
#define BADGE_SERVICE_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/* The diagnostic field codes are character macros Swift does not import; these constants
   carry the header's values so storage can read a failure's SQLSTATE and constraint. */
static const int CLIBPQ_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int CLIBPQ_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;
static const int CLIBPQ_DIAG_CONSTRAINT_NAME = PG_DIAG_CONSTRAINT_NAME;
static const int CLIBPQ_DIAG_TABLE_NAME = PG_DIAG_TABLE_NAME;
#endif
