#ifndef BADGE_SERVICE_CSQLITE_SHIM_H
#define BADGE_SERVICE_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
