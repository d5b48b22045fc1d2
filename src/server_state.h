/* server_state: the global `server` (defined in main.c) that holds what the
 * event loop thread owns (the client lists, the databases, the command
 * dict, cached time, statistics), and main.c's process-wide functions.
 * Configuration values live in `cfg` (config.h). Only the main thread
 * reads or writes `server`. */
#ifndef CAIRN_SERVER_STATE_H
#define CAIRN_SERVER_STATE_H
#include "config.h"
#include "dict.h"
#include "event.h"

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

typedef struct client client;
typedef struct cairnCommand cairnCommand;
typedef struct serverDb serverDb;

#define CAIRN_VERSION "7.0.15"     /* reported as redis_version: clients key features on it */
#define CAIRN_OWN_VERSION "0.1.0"

#define CONFIG_BINDADDR_MAX 16
#define CONFIG_MIN_RESERVED_FDS 32

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
    int tls_listen_fds[CONFIG_MAX_BIND * 2]; /* tls-port, on the same bind addresses */
    int tls_listen_count;
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
    int pause_failover;          /* FAILOVER holds writes (no end time) */
    int pause_shutdown;          /* a shutdown waiting for replicas holds writes */
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
    long long stat_evictedclients; /* maxmemory-clients */
    size_t clients_mem_tracked;    /* normal and pubsub clients' memory as last counted */
    long long stat_lookups;      /* dictionary lookups of the keyspace (debug counter) */
    dict *errors;                /* error code -> count, for INFO errorstats */
    /* Slow log */
    slowlogEntry *slowlog_head, *slowlog_tail;
    unsigned long slowlog_len;
    long long slowlog_entry_id;
    /* Misc */
    int loading;
    /* With loading: a replica's swapdb load of its own primary's history,
     * while clients read the old dataset (Redis 7.0's async loading). */
    int async_loading;
    int in_exec; /* EXEC is running its queued commands */
    char runid[41];
    char *configfile;
    int sentinel_mode;
    char *logfile_active;
    time_t last_log_reopen;
};

extern struct cairnServer server;

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

#endif
