/* blocked: clients waiting for keys (BLPOP, BLMOVE, BZPOPMIN, ...).
 *
 * A blocking command that finds nothing to serve calls blockForKeys() and
 * returns without replying. When one of the keys is later created with the
 * expected type (any write path: push, RENAME, MOVE, COPY, SWAPDB, a
 * transaction, a replicated command), signalKeyAsReady() queues it; after
 * the current command (and before the loop sleeps) the waiters of each ready
 * key are re-run in arrival order, each executing its original command again
 * with the time it has left. A re-run that still finds nothing blocks again
 * at the same place in the queue. Timeouts are resolved by the cron with the
 * reply chosen at block time; CLIENT UNBLOCK and disconnects release them.
 *
 * Type modules need only: blockForKeys() in the command when there is
 * nothing to serve, and getTimeoutFromObjectOrReply() to parse the timeout.
 * Key creation is signalled by db.c itself. */
#ifndef CAIRN_BLOCKED_H
#define CAIRN_BLOCKED_H

struct client;
struct robj;
struct serverDb;

/* What a timed-out waiter receives. */
#define BLOCK_REPLY_NULL_ARRAY 0 /* *-1 in RESP2, _ in RESP3 (BLPOP, BZPOPMIN, BLMPOP...) */
#define BLOCK_REPLY_NULL       1 /* $-1 in RESP2, _ in RESP3 */

/* Block c on keys[0..numkeys) that must become of type `type` (OBJ_LIST,
 * OBJ_ZSET). timeout is an absolute unix time in ms, 0 = forever. */
void blockForKeys(struct client *c, int type, struct robj **keys, int numkeys, long long timeout,
                  int timeout_reply);
/* Parse a BLPOP-style timeout in seconds (decimals allowed) into an absolute
 * unix time in ms (0 = block forever), replying Redis' errors on bad input. */
int getTimeoutFromObjectOrReply(struct client *c, struct robj *obj, long long *timeout);

/* Waiting for something other than a key (WAITAOF). The owner keeps the
 * condition and, when it holds, replies and calls blockedServed. */
#define BLOCKED_WAITAOF 0x100 /* c->btype of a client blocked by WAITAOF */
#define BLOCKED_SHUTDOWN 0x200 /* a SHUTDOWN waiting for replicas (shutdown_wait.c) */
/* Block c on no key until its owner serves it, the timeout passes
 * (absolute unix ms, 0 = forever), CLIENT UNBLOCK or a disconnect. On a
 * timeout or CLIENT UNBLOCK [TIMEOUT], on_timeout(c) writes the reply.
 * In a context that denies blocking (MULTI) the caller must not call this. */
void blockClientNoKeys(struct client *c, int btype, long long timeout,
                       void (*on_timeout)(struct client *c));
/* c's owner has replied: release it; its further input runs before the
 * loop sleeps. */
void blockedServed(struct client *c);
/* Process c's buffered input before the loop sleeps (once, however often
 * it is queued). */
void blockedQueueInput(struct client *c);
/* Clients blocked through blockClientNoKeys (owners skip their scan at 0). */
unsigned long blockedNoKeysCount(void);

/* Called by db.c when a key is created or replaced. */
void signalKeyAsReady(struct serverDb *db, struct robj *key, int type);
/* While a waiter's command is re-run (CLIENT_REEXECUTING): the ready key
 * it is re-run for. Redis 7.0 serves a waiter blocked on several keys from
 * that key, not from the first key of its command. NULL otherwise. */
struct robj *blockedReadyKey(void);
/* Serve the waiters of the keys signalled since the last call. */
void handleClientsBlockedOnKeys(void);
/* Process input that arrived for clients while they were blocked. */
void processUnblockedClients(void);
/* Cron: reply to and release waiters whose timeout passed. */
void blockedCheckTimeouts(void);
/* Disconnect / CLIENT UNBLOCK / RESET: release without serving. */
void unblockClient(struct client *c);
/* CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 if the client was blocked. */
int unblockClientById(unsigned long long id, int with_error);
/* Number of clients blocked on keys (INFO blocked_clients). */
unsigned long blockedClientsCount(void);

#endif
