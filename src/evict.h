/* evict: keeping the keyspace inside maxmemory (see evict.c for the
 * algorithm). commandProcess asks evictBeforeCommand once per command;
 * CONFIG SET maxmemory applies through evictApplyMaxmemory; INFO reads the
 * accounting and the counters. */
#ifndef CAIRN_EVICT_H
#define CAIRN_EVICT_H
#include <stddef.h>

typedef struct client client;
typedef struct cairnCommand cairnCommand;

#define EVICT_OK      0 /* within maxmemory (or nothing to do) */
#define EVICT_RUNNING 1 /* still over, the timer keeps evicting */
#define EVICT_FAIL    2 /* over and nothing left that the policy may evict */

#define EVICT_OOM_ERROR "OOM command not allowed when used memory > 'maxmemory'."

/* Evict what the policy allows until memory fits or the tenacity's time
 * slice is spent. */
int evictPerform(void);
/* Run evictions before cmd; 1 when the command must be refused with -OOM. */
int evictBeforeCommand(client *c, cairnCommand *cmd);
/* Memory that used_memory holds but maxmemory does not count: the
 * propagation stream beyond the backlog (replica and AOF buffers). */
size_t evictNotCountedMemory(void);
/* The keyspace dict's expand veto, as Redis: a table not yet past its
 * maximum load factor does not double when the new bucket array would put
 * memory over maxmemory (and so evict keys for the table's sake). */
int evictDictExpandAllowed(size_t more_mem, double used_ratio);
/* INFO stats: ms spent over maxmemory in total and in the current spell. */
long long evictTotalExceededMs(void);
long long evictCurrentExceededMs(void);
/* CONFIG RESETSTAT: the exceeded-time clocks restart. */
void evictResetStats(void);
/* The CONFIG SET maxmemory hook. */
int evictApplyMaxmemory(const char **err);

#endif
