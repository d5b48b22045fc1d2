/* lazyfree: dropping big values and whole keyspaces without making the
 * event loop wait for free() (UNLINK, FLUSHALL/FLUSHDB ASYNC and the
 * lazyfree-lazy-* settings), Redis 7.0's rules and INFO counters. */
#ifndef CAIRN_LAZYFREE_H
#define CAIRN_LAZYFREE_H

#include "dict.h"
#include "object.h"

/* Values that take more than this many frees (nodes, members, fields) go
 * to the background thread; below it, a handoff costs more than the free. */
#define LAZYFREE_THRESHOLD 64

/* Drop one reference to o, a value just unlinked from the keyspace. A big
 * value nobody else references is freed by the background thread. */
void lazyfreeObject(robj *o);
/* Estimated bytes of values handed over and not freed yet. */
size_t lazyfreePendingBytes(void);

/* Free a keyspace taken out of service: keys (the main dict, which owns
 * keys and values) and expires (same key pointers, owns nothing). Both are
 * handed over; the caller has already put empty dicts in their place. */
void lazyfreeKeyspace(dict *keys, dict *expires);

/* Free arg with fn on the lazy-free thread (the job owns arg), counted
 * as `objects` in the INFO counters (SCRIPT/FUNCTION FLUSH ASYNC: an old
 * Lua state). */
typedef void lazyfreeFn(void *arg);
void lazyfreeSubmit(lazyfreeFn *fn, void *arg, unsigned long objects);

/* INFO memory: lazyfree_pending_objects and lazyfreed_objects. */
unsigned long lazyfreePendingObjects(void);
unsigned long long lazyfreeFreedObjects(void);
void lazyfreeResetStats(void);

#endif
