/* replica_expire: expiry of the keys a writable replica's own clients gave
 * a TTL (replica_expire.c). A replica never expires its primary's keys,
 * which go when the primary's DEL arrives; keys written locally (with
 * replica-read-only no) have no such DEL coming, so they are tracked here
 * and deleted by the replica itself, as Redis 7.0 does. */
#ifndef CAIRN_REPLICA_EXPIRE_H
#define CAIRN_REPLICA_EXPIRE_H

#include "sds.h"

#include <stddef.h>

/* key in database dbid just got a TTL from a local (non-primary) write. */
void replicaExpireTrack(int dbid, sds key);
/* Delete the tracked keys whose time has come (from the expire cron). */
void replicaExpireCycle(void);
/* Forget every tracked key (all databases emptied: FLUSHALL, full sync). */
void replicaExpireForget(void);
/* INFO stats slave_expires_tracked_keys. */
size_t replicaExpireTracked(void);

#endif
