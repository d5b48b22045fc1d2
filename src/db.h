/* db: the keyspace seen as whole databases, for modules that walk or fill
 * them without the client and command machinery of server.h (snapshots,
 * later the AOF rewrite). Implemented in db.c; the per-key API the commands
 * use stays in server.h.
 *
 * Database i holds dbKeysDict(i) (sds key -> robj value, owned by the
 * database) and dbExpiresDict(i) (the same key pointers -> unix ms in the
 * entry's signed integer). Callers must not add or remove entries through
 * these pointers; iterate them, or fill the keyspace with dbAddLoaded. */
#ifndef CAIRN_DB_H
#define CAIRN_DB_H
#include "dict.h"
#include "object.h"
#include "sds.h"

int dbCount(void);
dict *dbKeysDict(int dbid);
dict *dbExpiresDict(int dbid);
/* Make room for a database about to receive `keys` keys, `expires` of them
 * with a TTL (a hint: capped, failures ignored). */
void dbExpandForLoad(int dbid, unsigned long keys, unsigned long expires);
/* Add a key read from a snapshot: the database takes the key sds and the
 * caller's reference to val; expire is unix ms or -1. With replace an
 * existing key is overwritten, otherwise 0 is returned and nothing is taken. */
int dbAddLoaded(int dbid, sds key, robj *val, long long expire, int replace);

#endif
