/* server: the shared core types (databases, clients, commands, the server
 * state) and the functions modules call on each other.
 *
 * Everything the event loop thread owns hangs off the global `server`;
 * configuration values live in `cfg` (config.h). Data structure headers
 * (sds.h, dict.h, object.h) stay independent of this file; persistence/ and
 * replication/ will include only the narrow headers they need. */
#ifndef CAIRN_SERVER_H
#define CAIRN_SERVER_H

#include "config.h"
#include "dict.h"
#include "event.h"
#include "log.h"
#include "conn.h"
#include "object.h"
#include "reply.h"
#include "resp.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#define CAIRN_VERSION "7.0.15"     /* reported as redis_version: clients key features on it */
#define CAIRN_OWN_VERSION "0.1.0"

#define C_OK  0
#define C_ERR -1

#define CONFIG_BINDADDR_MAX 16
#define PROTO_INLINE_MAX_SIZE (1024 * 64)
#define PROTO_IOBUF_LEN (1024 * 16)
#define PROTO_MBULK_BIG_ARG (1024 * 32)
#define CONFIG_MIN_RESERVED_FDS 32
#define CRON_DBS_PER_CALL 16
#define CLIENT_NAME_MAX 0 /* no limit besides the character set */
#define NET_IP_STR_LEN 46
#define NET_ADDR_STR_LEN (NET_IP_STR_LEN + 32)

/* Client flags */
#define CLIENT_CLOSE_AFTER_REPLY (1ULL << 0)
#define CLIENT_CLOSE_ASAP        (1ULL << 1)
#define CLIENT_PENDING_WRITE     (1ULL << 2)
#define CLIENT_MONITOR           (1ULL << 3)
#define CLIENT_REPLY_OFF         (1ULL << 4)
#define CLIENT_REPLY_SKIP_NEXT   (1ULL << 5)
#define CLIENT_REPLY_SKIP        (1ULL << 6)
#define CLIENT_NO_EVICT          (1ULL << 7)
#define CLIENT_UNIX_SOCKET       (1ULL << 8)
#define CLIENT_PROTOCOL_ERROR    (1ULL << 9)
#define CLIENT_EXECUTING_COMMAND (1ULL << 10)
#define CLIENT_FAKE              (1ULL << 11)
#define CLIENT_AUTHENTICATED     (1ULL << 12)
#define CLIENT_IN_FREE_LIST      (1ULL << 13)
#define CLIENT_BLOCKED           (1ULL << 14) /* waiting in blocked.c */
#define CLIENT_DENY_BLOCKING     (1ULL << 15) /* blocking commands must not block (MULTI, scripts) */
#define CLIENT_REEXECUTING       (1ULL << 16) /* a blocked command re-run because a key is ready */
#define CLIENT_UNBLOCKED         (1ULL << 17) /* in server.unblocked: input waits to be processed */
#define CLIENT_PUBSUB            (1ULL << 18) /* has (shard) channel or pattern subscriptions */
#define CLIENT_MULTI             (1ULL << 19) /* between MULTI and EXEC */
#define CLIENT_DIRTY_CAS         (1ULL << 20) /* a watched key changed: EXEC fails */
#define CLIENT_DIRTY_EXEC        (1ULL << 21) /* a queued command was rejected: EXECABORT */
#define CLIENT_TRACKING          (1ULL << 22) /* client-side caching enabled */
#define CLIENT_TRACKING_BCAST    (1ULL << 23)
#define CLIENT_TRACKING_OPTIN    (1ULL << 24)
#define CLIENT_TRACKING_OPTOUT   (1ULL << 25)
#define CLIENT_TRACKING_CACHING  (1ULL << 26) /* CLIENT CACHING yes/no for the next command */
#define CLIENT_TRACKING_NOLOOP   (1ULL << 27)
#define CLIENT_TRACKING_BROKEN_REDIR (1ULL << 28)
#define CLIENT_POSTPONED         (1ULL << 29) /* held by CLIENT PAUSE until it ends */
#define CLIENT_AOF_WAIT          (1ULL << 30) /* output held until the AOF fsync covering it (aof.c) */
#define CLIENT_AOF_RESUME        (1ULL << 31) /* released by the AOF: input waits to be processed */

#define PAUSE_NONE  0
#define PAUSE_WRITE 1
#define PAUSE_ALL   2

/* Command flags (the subset of Redis' that matters to the core now). */
#define CMD_WRITE      (1ULL << 0)
#define CMD_READONLY   (1ULL << 1)
#define CMD_DENYOOM    (1ULL << 2)
#define CMD_ADMIN      (1ULL << 4)
#define CMD_PUBSUB     (1ULL << 5)
#define CMD_NOSCRIPT   (1ULL << 6)
#define CMD_BLOCKING   (1ULL << 8)
#define CMD_LOADING    (1ULL << 9)
#define CMD_STALE      (1ULL << 10)
#define CMD_SKIP_MONITOR (1ULL << 11)
#define CMD_SKIP_SLOWLOG (1ULL << 12)
#define CMD_FAST       (1ULL << 14)
#define CMD_NO_AUTH    (1ULL << 15)
#define CMD_MAY_REPLICATE (1ULL << 16)
#define CMD_SENTINEL   (1ULL << 17)
#define CMD_NO_MANDATORY_KEYS (1ULL << 19)
#define CMD_PROTECTED  (1ULL << 20)
#define CMD_NO_ASYNC_LOADING (1ULL << 23)
#define CMD_NO_MULTI   (1ULL << 24)
#define CMD_ALLOW_BUSY (1ULL << 26)
#define CMD_MOVABLE_KEYS (1ULL << 25) /* set at start-up from the key specs */

/* Key spec flags (COMMAND INFO, COMMAND GETKEYSANDFLAGS), Redis' names. */
#define CMD_KEY_RO (1U << 0)
#define CMD_KEY_RW (1U << 1)
#define CMD_KEY_OW (1U << 2)
#define CMD_KEY_RM (1U << 3)
#define CMD_KEY_ACCESS (1U << 4)
#define CMD_KEY_UPDATE (1U << 5)
#define CMD_KEY_INSERT (1U << 6)
#define CMD_KEY_DELETE (1U << 7)
#define CMD_KEY_NOT_KEY (1U << 8)
#define CMD_KEY_INCOMPLETE (1U << 9)
#define CMD_KEY_VARIABLE_FLAGS (1U << 10)

/* ACL categories reported by COMMAND INFO (no ACL yet, but clients read them). */
#define ACL_CAT_KEYSPACE   (1ULL << 0)
#define ACL_CAT_READ       (1ULL << 1)
#define ACL_CAT_WRITE      (1ULL << 2)
#define ACL_CAT_LIST       (1ULL << 3)
#define ACL_CAT_HASH       (1ULL << 4)
#define ACL_CAT_SET        (1ULL << 5)
#define ACL_CAT_SORTEDSET  (1ULL << 6)
#define ACL_CAT_STRING     (1ULL << 7)
#define ACL_CAT_BITMAP     (1ULL << 8)
#define ACL_CAT_HYPERLOGLOG (1ULL << 9)
#define ACL_CAT_PUBSUB     (1ULL << 13)
#define ACL_CAT_BLOCKING   (1ULL << 17)
#define ACL_CAT_ADMIN      (1ULL << 10)
#define ACL_CAT_FAST       (1ULL << 11)
#define ACL_CAT_SLOW       (1ULL << 12)
#define ACL_CAT_DANGEROUS  (1ULL << 14)
#define ACL_CAT_CONNECTION (1ULL << 15)
#define ACL_CAT_TRANSACTION (1ULL << 16)

struct client;
typedef void commandProc(struct client *c);

/* One key a command names: its argv index and CMD_KEY_* flags. */
typedef struct cmdKeyRef {
    int pos;
    unsigned flags;
} cmdKeyRef;
/* For commands whose keys the key specs cannot describe (SORT ... STORE)
 * or whose flags depend on the arguments (SET ... GET): fills keys (room
 * for argc entries), returns how many. */
typedef int cmdGetKeysProc(robj **argv, int argc, cmdKeyRef *keys);
struct cmdKeySpec;

/* Key positions the classic way (first, last, step): last < 0 counts from
 * the end (MSET: 1, -1, 2). keyspecs describes them as Redis' key specs do
 * (the format is in commands.c); they are parsed at start-up. */
typedef struct cairnCommand {
    const char *name;
    commandProc *proc;
    int arity; /* >0 exact, <0 at least -arity */
    uint64_t flags;
    uint64_t acl_categories;
    int firstkey, lastkey, keystep;
    const char *summary;
    const char *since;
    const char *group;
    const char *tips;                   /* NULL or space separated */
    const char *keyspecs;               /* NULL: no keys */
    cmdGetKeysProc *getkeys;            /* NULL: the key specs say it all */
    struct cmdKeySpec *key_specs;       /* parsed keyspecs */
    int key_specs_num;
    uint64_t *latency_hist;             /* latency.c, NULL until first call */
    struct cairnCommand *subcommands;   /* NULL-name terminated, for containers */
    struct cairnCommand *parent;
    /* Filled at start-up */
    sds fullname;
    int id;
    /* Statistics */
    long long microseconds, calls, rejected_calls, failed_calls;
} cairnCommand;

typedef struct serverDb {
    dict *dict;    /* sds key -> robj value */
    dict *expires; /* sds key (shared with dict) -> int64 unix ms */
    int id;
    long long avg_ttl;
    unsigned long expires_cursor; /* active expiry resume point */
} serverDb;

typedef struct client {
    uint64_t id;
    uint64_t flags;
    connection *conn;
    int resp; /* 2 or 3 */
    serverDb *db;
    sds name;
    sds querybuf;
    size_t qb_pos;            /* consumed prefix of querybuf */
    size_t querybuf_peak;
    respRequest req;          /* parser state for the request being read */
    int argc, argv_len;
    robj **argv;
    size_t argv_len_sum;
    robj **original_argv;     /* argv before a rewrite, for SLOWLOG and MONITOR */
    int original_argc;
    cairnCommand *cmd, *lastcmd, *realcmd;
    time_t ctime;
    long long last_interaction; /* server.unixtime_ms of last I/O */
    long long obuf_soft_limit_reached_time;
    /* Output */
    replyBlock *reply_head, *reply_tail;
    size_t reply_bytes;       /* bytes held in blocks (capacity) */
    size_t sentlen;           /* bytes of c->buf or the head block already written */
    size_t bufpos;
    size_t buf_size;          /* c->buf's usable size: resized by the cron */
    size_t buf_peak;          /* largest bufpos since buf_peak_reset_ms */
    long long buf_peak_reset_ms;
    long long commands_processed;
    struct client *pending_next; /* in server.pending_writes */
    struct client *prev, *next;  /* all clients list */
    struct client *monitor_next; /* server.monitors */
    struct client *close_next;   /* server.clients_to_close */
    replyMark cmd_mark;          /* where this command's reply starts */
    /* Blocking (blocked.c) */
    int btype;                   /* type the keys must have to wake us */
    int bnumkeys;
    robj **bkeys;                /* keys we wait on (own references) */
    serverDb *bdb;
    long long btimeout;          /* absolute unix ms, 0 = forever */
    int btimeout_reply;
    struct client *unblocked_next; /* server.unblocked */
    /* Pub/Sub (pubsub.c): name -> NULL, created on first subscription */
    dict *pubsub_channels, *pubsub_patterns, *pubsub_shard_channels;
    /* Transactions (multi.c) */
    void *mstate;                /* queued commands */
    int mstate_len, mstate_cap;
    void *watched;               /* watched keys */
    int watched_len, watched_cap;
    /* Client-side caching (tracking.c) */
    uint64_t tracking_redirect;  /* 0: none */
    sds *tracking_prefixes;      /* BCAST prefixes */
    int tracking_nprefixes;
    /* appendfsync always (aof.c): held output is a prefix of aof_hold_bytes
     * bytes waiting for aof_wait_offset to be on disk, then (if
     * aof_next_offset) the rest, waiting for aof_next_offset */
    long long aof_reply_offset; /* stream offset the last keyspace command's reply shows */
    long long aof_wait_offset, aof_next_offset;
    size_t aof_hold_bytes;
    size_t write_limit;          /* clientWrite writes at most this many bytes (0: no limit) */
    struct client *aof_held_next;
    char peer[NET_ADDR_STR_LEN];
    char *buf;                   /* static reply buffer, allocated with the client */
} client;

/* Append to the reply. The fast path is a bounds check and a memcpy into the
 * static buffer; everything else (blocks, limits) is out of line. */
static inline void replyRaw(client *c, const char *s, size_t len) {
    if (c->reply_head == NULL && c->bufpos + len <= c->buf_size) {
        memcpy(c->buf + c->bufpos, s, len);
        c->bufpos += len;
        return;
    }
    replyAppendSlow(c, s, len);
}

typedef struct slowlogEntry slowlogEntry;

struct cairnServer {
    pid_t pid;
    char *executable;
    char **exec_argv;
    eventLoop *el;
    cairnCommand *commands_list; /* the table, for COMMAND */
    dict *commands;              /* case-insensitive name -> cairnCommand* */
    serverDb *db;
    int listen_fds[CONFIG_MAX_BIND * 2];
    int listen_count;
    int unix_fd;
    char neterr[256];
    /* Clients */
    client *clients;             /* doubly linked list of all clients */
    unsigned long nclients;
    client *pending_writes;      /* clients with output to flush before sleeping */
    client *monitors;
    client *clients_to_close;
    client *unblocked;           /* served waiters whose further input waits */
    int pause_type;              /* PAUSE_* (CLIENT PAUSE) */
    long long pause_end;         /* unix ms when the pause ends */
    unsigned long blocked_clients;
    client *current_client;
    uint64_t next_client_id;
    /* Time: cached once per event loop iteration and per command */
    long long unixtime_ms;
    time_t unixtime;
    long long ustime;
    long long cmd_time_snapshot; /* ms clock used for expiry during a command */
    unsigned int lruclock;
    long long stat_starttime;
    uint64_t start_monotonic_us;
    int hz;                      /* effective hz */
    long long cronloops;
    volatile int shutdown_asap;
    int in_shutdown;
    /* Dirty counter and propagation */
    long long dirty;
    /* Statistics */
    long long stat_numcommands;
    long long stat_numconnections;
    long long stat_rejected_conn;
    long long stat_expiredkeys;
    long long stat_expired_stale_perc_x100;
    long long stat_expired_time_cap_reached_count;
    long long stat_keyspace_hits, stat_keyspace_misses;
    long long stat_net_input_bytes, stat_net_output_bytes;
    long long stat_total_error_replies;
    long long stat_unexpected_error_replies;
    long long stat_io_reads_processed, stat_io_writes_processed;
    long long stat_client_qbuf_limit_disconnections;
    long long stat_client_outbuf_limit_disconnections;
    long long stat_reply_buffer_shrinks, stat_reply_buffer_expands;
    long long stat_evictedkeys;
    long long stat_lookups;      /* dictionary lookups of the keyspace (debug counter) */
    dict *errors;                /* error code -> count, for INFO errorstats */
    /* Slow log */
    slowlogEntry *slowlog_head, *slowlog_tail;
    unsigned long slowlog_len;
    long long slowlog_entry_id;
    /* Misc */
    int loading;
    int in_exec; /* EXEC is running its queued commands */
    char runid[41];
    char *configfile;
    int sentinel_mode;
    char *logfile_active;
    time_t last_log_reopen;
};

extern struct cairnServer server;

/* --- log.c: see log.h --- */

/* --- client.c --- */
client *clientCreate(connection *conn, int flags);
void clientFree(client *c);
void clientFreeAsync(client *c);
void clientsFreePendingClose(void);
void clientFreeArgv(client *c);
void clientReset(client *c);
void clientSetProtocolError(client *c, const char *err);
void clientAcceptTcp(eventLoop *el, int fd, void *data, int mask);
void clientAcceptUnix(eventLoop *el, int fd, void *data, int mask);
int clientWrite(client *c, int handler_installed);
void clientsHandlePendingWrites(void);
int clientsCron(void);
/* DEBUG REPLYBUFFER: how often a client's reply buffer peak restarts (-1:
 * never) and whether the cron resizes reply buffers at all. */
void clientSetReplyBufferPeakReset(long ms);
void clientSetReplyBufferResizing(int on);
const char *clientTypeName(client *c);
int clientType(client *c);
sds clientInfoString(sds s, client *c);
sds clientListString(int type);
int clientHasPendingReplies(client *c);
int clientCheckOutputLimits(client *c);
void clientProcessInput(client *c);
client *clientLookupById(uint64_t id);
void clientRewriteArgv(client *c, int argc, ...);
/* Same with a ready argv array (ownership taken), or replacing argv[i] only. */
void clientReplaceArgv(client *c, robj **argv, int argc);
void clientRewriteArg(client *c, int i, robj *o);
/* Keep the current argv as the original (SLOWLOG and MONITOR show it even
 * if the command rewrites argv in place); released by clientFreeOriginalArgv. */
void clientRetainOriginalArgv(client *c);
void clientFreeOriginalArgv(client *c);

/* --- commands.c --- */
void commandsInit(void);
cairnCommand *commandLookup(robj **argv, int argc);
cairnCommand *commandLookupByName(const char *name);
int commandsApplyRenames(const char **err); /* cfg.rename_command, after commandsInit */
int commandProcess(client *c);
void commandCall(client *c);
void commandCommand(client *c);
int commandGetKeys(cairnCommand *cmd, robj **argv, int argc, int *keys, int max);
void commandResetStats(void);

/* --- propagate.c --- */
void propagateInit(void);
/* Encode one write into the shared stream (SELECT first if the db changed). */
void propagate(int dbid, robj **argv, int argc);
void propagateCommand(client *c);
void propagateDel(serverDb *db, robj *key, int lazy);
long long propagateOffset(void);

/* --- db.c --- */
/* Result of a single keyspace lookup: the entry if the key exists (and is not
 * expired), otherwise the insert position. Write commands pass it on to
 * dbSetValue/dbSetExpire/... so the key is found exactly once. */
typedef struct keyRef {
    serverDb *db;
    robj *key;
    dictEntry *de;    /* NULL if absent */
    dictInsertPos pos;
} keyRef;
void dbInit(void);
robj *dbLookupRead(serverDb *db, robj *key);     /* updates hits/misses and LRU */
robj *dbLookupReadNoTouch(serverDb *db, robj *key);
robj *dbLookupReadNoNotify(serverDb *db, robj *key);
robj *dbLookupWrite(serverDb *db, robj *key);
/* Lookup for a write command: deletes the key if logically expired and
 * returns it in ref (ref->de NULL if absent, with an insert position). */
void dbFindForWrite(serverDb *db, robj *key, keyRef *ref);
/* Store val (takes the caller's reference) at ref: overwrite or insert. */
void dbSetValue(keyRef *ref, robj *val);
/* Replace the value at an existing entry, keeping the expire. */
void dbOverwriteValue(keyRef *ref, robj *val);
/* Make the string value at an existing ref a private raw sds that can be
 * modified in place (t_string.c; APPEND, SETRANGE, SETBIT, PFADD ...). */
robj *dbUnshareStringValue(keyRef *ref);
void dbAdd(serverDb *db, robj *key, robj *val);
/* dbDelete frees the value as lazyfree-lazy-server-del says; DEL, UNLINK
 * and expiry choose with dbDeleteSync / dbDeleteAsync / dbDeleteExpired
 * (lazyfree-lazy-expire). */
int dbDelete(serverDb *db, robj *key);
int dbDeleteSync(serverDb *db, robj *key);
int dbDeleteAsync(serverDb *db, robj *key);
int dbDeleteExpired(serverDb *db, robj *key);
int dbExists(serverDb *db, robj *key);
long long dbGetExpire(serverDb *db, robj *key);
long long dbGetExpireEntry(serverDb *db, dictEntry *de);
void dbSetExpireEntry(serverDb *db, dictEntry *de, long long when);
int dbRemoveExpireEntry(serverDb *db, dictEntry *de);
void dbSetExpire(serverDb *db, robj *key, long long when);
int dbRemoveExpire(serverDb *db, robj *key);
int dbKeyIsExpired(serverDb *db, dictEntry *de);
int dbExpireIfNeeded(serverDb *db, robj *key, dictEntry *de);
void dbDeleteExpiredEntry(serverDb *db, dictEntry *de);
long long dbEmpty(int dbnum, int async);
long long dbTotalKeys(void);
int dbSelect(client *c, int id);
robj *dbRandomKey(serverDb *db);
void dbSwap(int id1, int id2);
void dbsCron(void);
void activeExpireCycle(int fast);
long long dbExpiredNow(void);
void signalModifiedKey(client *c, serverDb *db, robj *key);
void signalFlushedDb(int dbid);
void notifyKeyspaceEvent(int type, const char *event, robj *key, int dbid);
/* Keyspace notification classes (delivery arrives with Pub/Sub). */
#define NOTIFY_KEYSPACE (1 << 0)
#define NOTIFY_KEYEVENT (1 << 1)
#define NOTIFY_GENERIC  (1 << 2)
#define NOTIFY_STRING   (1 << 3)
#define NOTIFY_LIST     (1 << 4)
#define NOTIFY_SET      (1 << 5)
#define NOTIFY_HASH     (1 << 6)
#define NOTIFY_ZSET     (1 << 7)
#define NOTIFY_EXPIRED  (1 << 8)
#define NOTIFY_EVICTED  (1 << 9)
#define NOTIFY_STREAM   (1 << 10)
#define NOTIFY_KEY_MISS (1 << 11)
#define NOTIFY_LOADED   (1 << 12)
#define NOTIFY_MODULE   (1 << 13)
#define NOTIFY_NEW      (1 << 14)
#define NOTIFY_ALL (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE)

/* dictTypes shared across modules */
extern dictType dbDictType, keyptrDictType, commandTableDictType, errorsDictType;
uint64_t dictSdsHash(const void *key);
uint64_t dictSdsCaseHash(const void *key);
int dictSdsKeyCompare(dict *d, const void *k1, const void *k2);
int dictSdsKeyCaseCompare(dict *d, const void *k1, const void *k2);
void dictSdsDestructor(dict *d, void *val);

/* --- main.c --- */
void updateCachedTime(void);
unsigned int getLRUClock(void);
int prepareForShutdown(int flags);
#define SHUTDOWN_NOFLAGS 0
#define SHUTDOWN_SAVE 1
#define SHUTDOWN_NOSAVE 2
#define SHUTDOWN_NOW 4
#define SHUTDOWN_FORCE 8
int processEventsWhileBlocked(void);

/* --- slowlog.c / info.c / debug.c / monitor --- */
void slowlogPush(client *c, robj **argv, int argc, long long duration);
void slowlogReset(void);
void monitorFeed(client *c, serverDb *db, robj **argv, int argc);
sds infoGenerate(sds info, const char *section, int all, int everything);
void errorStatIncr(const char *err, size_t len);
void errorStatsReset(void);

/* --- pause (conncmd.c) --- */
int clientsArePaused(void);       /* any pause in force (expiry must not delete) */
int commandIsPaused(client *c);   /* would c's current command wait? */
void pauseClientCommand(client *c);
void unpauseClients(void);
void pauseCheckTimeout(void);

/* --- multi.c --- */
int multiQueueHasWrites(client *c);
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
void propagateTransactionBegin(void);
void propagateTransactionEnd(void);

/* --- tracking.c --- */
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

/* --- pubsub.c --- */
long long pubsubPublish(robj *channel, robj *msg);
void pubsubUnsubscribeAllClient(client *c, int notify);
unsigned long pubsubClientSubscriptions(client *c);
unsigned long pubsubTotalChannels(void);
unsigned long pubsubTotalPatterns(void);
unsigned long pubsubTotalShardChannels(void);
void subscribeCommand(client *c);
void unsubscribeCommand(client *c);
void psubscribeCommand(client *c);
void punsubscribeCommand(client *c);
void ssubscribeCommand(client *c);
void sunsubscribeCommand(client *c);
void publishCommand(client *c);
void spublishCommand(client *c);
void pubsubCommand(client *c);

/* --- Commands (one function each, registered in commands.c) --- */
/* strings: t_string.c */
void getCommand(client *c);
void setCommand(client *c);
void setnxCommand(client *c);
void setexCommand(client *c);
void psetexCommand(client *c);
void getsetCommand(client *c);
void getdelCommand(client *c);
void getexCommand(client *c);
void mgetCommand(client *c);
void msetCommand(client *c);
void msetnxCommand(client *c);
void incrCommand(client *c);
void decrCommand(client *c);
void incrbyCommand(client *c);
void decrbyCommand(client *c);
void incrbyfloatCommand(client *c);
void appendCommand(client *c);
void setrangeCommand(client *c);
void getrangeCommand(client *c);
void strlenCommand(client *c);
void lcsCommand(client *c);
/* keys: keys.c */
void delCommand(client *c);
void unlinkCommand(client *c);
void existsCommand(client *c);
void typeCommand(client *c);
void keysCommand(client *c);
void scanCommand(client *c);
void randomkeyCommand(client *c);
void renameCommand(client *c);
void renamenxCommand(client *c);
void copyCommand(client *c);
void dumpCommand(client *c);
void restoreCommand(client *c);
void moveCommand(client *c);
void touchCommand(client *c);
void dbsizeCommand(client *c);
void flushdbCommand(client *c);
void flushallCommand(client *c);
void selectCommand(client *c);
void swapdbCommand(client *c);
void objectCommand(client *c);
/* expire.c */
void expireCommand(client *c);
void pexpireCommand(client *c);
void expireatCommand(client *c);
void pexpireatCommand(client *c);
void ttlCommand(client *c);
void pttlCommand(client *c);
void expiretimeCommand(client *c);
void pexpiretimeCommand(client *c);
void persistCommand(client *c);
/* connection commands: conncmd.c */
void pingCommand(client *c);
void echoCommand(client *c);
void quitCommand(client *c);
void helloCommand(client *c);
void authCommand(client *c);
void resetCommand(client *c);
void clientCommand(client *c);
void selectCommand(client *c);
/* server commands */
void infoCommand(client *c);
void timeCommand(client *c);
void debugCommand(client *c);
void slowlogCommand(client *c);
void shutdownCommand(client *c);
void monitorCommand(client *c);
void lastsaveCommand(client *c);
void memoryCommand(client *c);
void latencyCommand(client *c);

/* SCAN family (keys.c): HSCAN/SSCAN/ZSCAN parse with the same rules. */
typedef struct scanOptions {
    long count;
    sds pattern;      /* NULL: match everything */
    const char *type; /* SCAN TYPE filter, NULL: none */
} scanOptions;
int scanParseCursorOrReply(client *c, robj *o, unsigned long *cursor);
int scanParseOptionsOrReply(client *c, int start, scanOptions *opt, int allow_type);
int scanMatches(const scanOptions *opt, const char *s, size_t len);

/* Helpers commands share */
int getLongLongFromObjectOrReply(client *c, robj *o, long long *target, const char *msg);
int getLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
int getIntFromObjectOrReply(client *c, robj *o, int *target, const char *msg);
int getPositiveLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
int getRangeLongFromObjectOrReply(client *c, robj *o, long min, long max, long *target, const char *msg);
int getLongDoubleFromObjectOrReply(client *c, robj *o, long double *target, const char *msg);
int getDoubleFromObjectOrReply(client *c, robj *o, double *target, const char *msg);
int checkType(client *c, robj *o, int type);
int argEq(robj *arg, const char *name); /* case-insensitive option match */

#endif
