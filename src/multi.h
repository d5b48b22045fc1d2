/* multi: MULTI/EXEC/DISCARD and WATCH (multi.c). The command core queues
 * commands while CLIENT_MULTI is set; the keyspace calls touchWatchedKey
 * (through signalModifiedKey) and touchAllWatchedKeysInDb (FLUSH*, SWAPDB). */
#ifndef CAIRN_MULTI_H
#define CAIRN_MULTI_H
#include "object.h"

#include <stdint.h>

typedef struct client client;
typedef struct serverDb serverDb;

int multiQueueHasWrites(client *c);
/* Would a queued command be held by CLIENT PAUSE WRITE (scripts by their flags)? */
int multiQueueMayWrite(client *c);
/* What the queued commands and watched keys cost the client (its multi-mem). */
size_t multiClientMemory(client *c);
/* 1 if a queued command lacks a flag (EXEC is denied what one of them is). */
int multiQueueAnyLacks(client *c, uint64_t flag);
/* Whether any queued command has one of these CMD_* flags. */
int multiQueueHasFlags(client *c, uint64_t flags);
void multiQueueCommand(client *c);
void multiFlagError(client *c);
void multiDiscard(client *c);
void unwatchAllKeys(client *c);
void touchWatchedKey(serverDb *db, robj *key);
void touchAllWatchedKeysInDb(serverDb *emptied, serverDb *replaced_with);
int multiWatchingClients(void);
void multiCommand(client *c);
void execCommand(client *c);
void discardCommand(client *c);
void watchCommand(client *c);
void unwatchCommand(client *c);

#endif
