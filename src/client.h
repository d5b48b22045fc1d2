/* client: one connected (or fake) client: its struct and flags, and the
 * lifecycle client.c implements (create, read and parse input, write
 * output, limits, free), plus CLIENT PAUSE (conncmd.c).
 *
 * A client enters through clientAcceptTcp/clientAcceptUnix/clientAcceptTls (or
 * clientCreate(NULL, ...) for a fake one) and leaves through clientFree or
 * clientFreeAsync; the client owns its query buffer, argv, reply buffer and
 * blocks. The modules that keep state per client (blocked.c, pubsub.c,
 * multi.c, tracking.c, aof.c) own their fields here and release them from
 * clientFree. */
#ifndef CAIRN_CLIENT_H
#define CAIRN_CLIENT_H
#include "conn.h"
#include "dict.h"
#include "event.h"
#include "object.h"
#include "reply.h"
#include "resp.h"
#include "sds.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

typedef struct serverDb serverDb;
typedef struct cairnCommand cairnCommand;

#define PROTO_INLINE_MAX_SIZE (1024 * 64)
#define PROTO_IOBUF_LEN (1024 * 16)
#define PROTO_MBULK_BIG_ARG (1024 * 32)
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
#define CLIENT_REPLICA           (1ULL << 32) /* a replica of ours (replication/repl_primary.c) */
#define CLIENT_MASTER            (1ULL << 33) /* our primary's link (replication/repl_replica.c) */
#define CLIENT_REPL_WAIT         (1ULL << 34) /* in WAIT until replicas acknowledge */
#define CLIENT_SCRIPT            (1ULL << 35) /* runs a script's redis.call (script_lua.c) */

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
    size_t mem_tracked;       /* its share of server.clients_mem_tracked (maxmemory-clients) */
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
    void (*btimeout_fn)(struct client *c); /* blocked on no key: writes the timeout reply */
    long bwait_numlocal, bwait_numreplicas; /* WAITAOF's targets (waitaof.c) */
    struct client *unblocked_next; /* server.unblocked */
    /* Pub/Sub (pubsub.c): name -> NULL, created on first subscription */
    dict *pubsub_channels, *pubsub_patterns, *pubsub_shard_channels;
    /* Transactions (multi.c) */
    void *mstate;                /* queued commands */
    int mstate_len, mstate_cap;
    size_t mstate_argv_sum;      /* bytes of the queued arguments */
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
    void *repl;                  /* replication/: the replica's link state, NULL if none */
    struct aclUser *user;        /* acl.c: who it runs as; NULL: the server's own, may run anything */
    long long woff;              /* stream offset after this client's last write (WAIT, WAITAOF) */
    long long aof_gather_epoch;  /* released by this group commit, next command pending (aof.c) */
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

/* --- client.c --- */
client *clientCreate(connection *conn, int flags);
void clientFree(client *c);
void clientFreeAsync(client *c);
/* Memory of the clients waiting to be freed before the loop sleeps. */
size_t clientsClosingMemory(void);
/* clientFreeAsync, and the connection shut down at once, so the peer sees
 * the close before anything we send others this turn (Redis frees such
 * clients on the spot: CLIENT KILL, replicas dropped for a new history). */
void clientFreeAsyncShut(client *c);
void clientsFreePendingClose(void);
void clientFreeArgv(client *c);
void clientReset(client *c);
void clientSetProtocolError(client *c, const char *err);
void clientAcceptTcp(eventLoop *el, int fd, void *data, int mask);
void clientAcceptUnix(eventLoop *el, int fd, void *data, int mask);
/* The tls-port listener: each connection becomes a client once its TLS
 * handshake is done (conn_tls.c), without blocking the loop meanwhile. */
void clientAcceptTls(eventLoop *el, int fd, void *data, int mask);
int clientWrite(client *c, int handler_installed);
void clientsHandlePendingWrites(void);
int clientsCron(void);
/* DEBUG REPLYBUFFER: how often a client's reply buffer peak restarts (-1:
 * never) and whether the cron resizes reply buffers at all. */
void clientSetReplyBufferPeakReset(long ms);
void clientSetReadChunk(size_t bytes); /* DEBUG READ-CHUNK */
void clientSetReplyBufferResizing(int on);
const char *clientTypeName(client *c);
int clientType(client *c);
sds clientInfoString(sds s, client *c);
sds clientListString(int type);
int clientHasPendingReplies(client *c);
int clientCheckOutputLimits(client *c);
/* What a client costs: struct, buffers, pending output, argv (tot-mem). */
size_t clientMemoryUsage(client *c);
/* maxmemory-clients: close the biggest clients while all hold too much. */
void clientsEvictIfNeeded(void);
/* maxmemory-clients before each command, as Redis: if the clients' memory
 * as last counted reaches the limit, evict the biggest.
 * 1 if c itself was evicted (its command must not run). */
int clientsEvictBeforeCommand(client *c);
/* Recount c's memory into the running total after its command. */
void clientMemTrack(client *c);
void clientProcessInput(client *c);
client *clientLookupById(uint64_t id);
void clientRewriteArgv(client *c, int argc, ...);
/* Same with a ready argv array (ownership taken), or replacing argv[i] only. */
void clientReplaceArgv(client *c, robj **argv, int argc);
void clientRewriteArg(client *c, int i, robj *o);
/* Keep the current argv as the original (SLOWLOG and MONITOR show it even
 * if the command rewrites argv in place); released by clientFreeOriginalArgv. */
void clientRetainOriginalArgv(client *c);
void clientRedactArg(client *c, int i); /* "(redacted)" in SLOWLOG/MONITOR */
void clientFreeOriginalArgv(client *c);

/* --- pause (conncmd.c) --- */
int clientsArePaused(void);       /* any pause in force (expiry must not delete) */
int commandIsPaused(client *c);   /* would c's current command wait? */
void pauseClientCommand(client *c);
void unpauseClients(void);
void pauseCheckTimeout(void);
/* FAILOVER's own write pause (replication/failover.c), independent of
 * CLIENT PAUSE: writes wait while either holds them. */
void pauseWritesForFailover(int on);
/* The same for a shutdown waiting for its replicas (shutdown_wait.c). */
void pauseWritesForShutdown(int on);
#define PAUSE_NONE  0
#define PAUSE_WRITE 1
#define PAUSE_ALL   2

#endif
