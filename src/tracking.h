/* tracking: client-side caching (tracking.c): the tracking table, BCAST
 * prefixes, invalidation pushes. The command core remembers read keys,
 * the keyspace invalidates modified ones. */
#ifndef CAIRN_TRACKING_H
#define CAIRN_TRACKING_H
#include "object.h"

typedef struct client client;

void trackingRememberKeys(client *c);
void trackingInvalidateKey(client *modifier, robj *key);
void trackingInvalidateAll(void);
void trackingHandlePending(void);
void trackingBroadcast(void);
void trackingDisable(client *c);
void trackingCommand(client *c);
void trackingCachingCommand(client *c);
void trackingGetRedirCommand(client *c);
void trackingInfoCommand(client *c);
unsigned long trackingClientsCount(void);
unsigned long trackingTotalKeys(void);
unsigned long trackingTotalItems(void);
unsigned long trackingTotalPrefixes(void);

/* What a client's BCAST prefixes cost it (for maxmemory-clients). */
size_t trackingClientMemory(client *c);

#endif
