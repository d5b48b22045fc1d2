/* config: every configuration directive's current value, the directive table,
 * the file parser and the CONFIG command.
 *
 * Values enter from the config file (configLoad), command-line overrides
 * (applied as if appended to the file) and CONFIG SET; they leave as plain
 * fields of the global `cfg` that the rest of the server reads directly.
 * Only config.c writes to `cfg`. Strings in cfg are owned by config.c (sds or
 * zmalloc'ed char*, freed when replaced). */
#ifndef CAIRN_CONFIG_H
#define CAIRN_CONFIG_H
#include "sds.h"
#include <stddef.h>

#define CONFIG_MAX_BIND 16
#define CONFIG_DEFAULT_PORT 6379

#define LL_DEBUG   0
#define LL_VERBOSE 1
#define LL_NOTICE  2
#define LL_WARNING 3
#define LL_RAW     (1 << 10) /* flag: log without timestamp/prefix */

#define CLIENT_TYPE_NORMAL  0
#define CLIENT_TYPE_REPLICA 1
#define CLIENT_TYPE_PUBSUB  2
#define CLIENT_TYPE_OBUF_COUNT 3
#define CLIENT_TYPE_MASTER  3 /* CLIENT KILL/LIST TYPE master; no output limit class */

#define MAXMEMORY_NO_EVICTION    0
#define MAXMEMORY_ALLKEYS_LRU    1
#define MAXMEMORY_ALLKEYS_LFU    2
#define MAXMEMORY_ALLKEYS_RANDOM 3
#define MAXMEMORY_VOLATILE_LRU   4
#define MAXMEMORY_VOLATILE_LFU   5
#define MAXMEMORY_VOLATILE_RANDOM 6
#define MAXMEMORY_VOLATILE_TTL   7
/* Bit tests, so a lookup's policy check is one branch. */
#define MAXMEMORY_FLAG_LFU(p) ((((1u << MAXMEMORY_ALLKEYS_LFU) | (1u << MAXMEMORY_VOLATILE_LFU)) >> (p)) & 1u)
#define MAXMEMORY_FLAG_LRU(p) ((((1u << MAXMEMORY_ALLKEYS_LRU) | (1u << MAXMEMORY_VOLATILE_LRU)) >> (p)) & 1u)

#define DEBUG_CMD_NO    0
#define DEBUG_CMD_YES   1
#define DEBUG_CMD_LOCAL 2

#define TLS_CLIENT_AUTH_NO       0
#define TLS_CLIENT_AUTH_YES      1
#define TLS_CLIENT_AUTH_OPTIONAL 2

#define APPENDFSYNC_NO       0
#define APPENDFSYNC_ALWAYS   1
#define APPENDFSYNC_EVERYSEC 2

#define SUPERVISED_NONE       0
#define SUPERVISED_AUTODETECT 1
#define SUPERVISED_SYSTEMD    2
#define SUPERVISED_UPSTART    3

/* The values are rio_codec.h's RIO_CODEC_*. */
#define SNAPSHOT_COMPRESSION_NONE 0
#define SNAPSHOT_COMPRESSION_LZ4  1
#define SNAPSHOT_COMPRESSION_ZSTD 2
#define SANITIZE_DUMP_NO      0
#define SANITIZE_DUMP_YES     1
#define SANITIZE_DUMP_CLIENTS 2

#define OOM_SCORE_ADJ_NO       0
#define OOM_SCORE_RELATIVE     1
#define OOM_SCORE_ADJ_ABSOLUTE 2

#define REPL_DISKLESS_LOAD_DISABLED 0
#define REPL_DISKLESS_LOAD_WHEN_DB_EMPTY 1
#define REPL_DISKLESS_LOAD_SWAPDB 2

#define PROPAGATION_ERR_BEHAVIOR_IGNORE 0
#define PROPAGATION_ERR_BEHAVIOR_PANIC 1
#define PROPAGATION_ERR_BEHAVIOR_PANIC_ON_REPLICAS 2

#define ACL_PUBSUB_RESETCHANNELS 0
#define ACL_PUBSUB_ALLCHANNELS   1

typedef struct clientBufferLimit {
    unsigned long long hard_limit_bytes;
    unsigned long long soft_limit_bytes;
    long long soft_limit_seconds;
} clientBufferLimit;

typedef struct saveParam {
    long long seconds;
    long long changes;
} saveParam;

typedef struct cairnConfig {
    /* Process and logging */
    int daemonize;
    char *pidfile;             /* NULL: none */
    char *logfile;             /* "" means stdout */
    int verbosity;             /* loglevel: LL_* */
    int syslog_enabled;
    char *syslog_ident;
    int always_show_logo;
    int set_proc_title;
    char *proc_title_template;
    int supervised;            /* enum, accepted for compatibility */
    int crash_log_enabled;
    int crash_memcheck_enabled;
    int shutdown_timeout;
    int shutdown_on_sigint;    /* flags, accepted */
    int shutdown_on_sigterm;
    char *dir;                 /* current working directory, set via chdir */
    int enable_debug_cmd;      /* DEBUG_CMD_* */
    int enable_protected_configs;
    int enable_module_cmd;

    /* Networking */
    int port;
    char *bindaddr[CONFIG_MAX_BIND];
    int bindaddr_count;
    char *unixsocket;          /* NULL: none */
    unsigned int unixsocketperm;
    int tcp_backlog;
    int tcpkeepalive;
    int maxidletime;           /* timeout, seconds, 0 = never */
    unsigned int maxclients;
    int protected_mode;
    int io_threads_num;
    int io_threads_do_reads;
    long long proto_max_bulk_len;
    unsigned long long client_max_querybuf_len;
    clientBufferLimit client_obuf_limits[CLIENT_TYPE_OBUF_COUNT];
    char *requirepass;         /* NULL: no password; an sds (may hold NUL bytes) */

    /* TLS (tls.c builds the OpenSSL contexts from these; NULL = not set) */
    int tls_port;
    char *tls_cert_file, *tls_key_file, *tls_key_file_pass;
    char *tls_client_cert_file, *tls_client_key_file, *tls_client_key_file_pass;
    char *tls_dh_params_file, *tls_ca_cert_file, *tls_ca_cert_dir;
    int tls_auth_clients;      /* TLS_CLIENT_AUTH_* */
    char *tls_protocols, *tls_ciphers, *tls_ciphersuites;
    int tls_prefer_server_ciphers;
    int tls_session_caching;
    int tls_session_cache_size;
    int tls_session_cache_timeout;
    int tls_replication;       /* stored for the replication work */
    int tls_cluster;           /* accepted; there is no cluster bus */

    /* Keyspace */
    int dbnum;                 /* databases */
    int hz;                    /* configured hz */
    int dynamic_hz;
    int activerehashing;
    int active_expire_effort;  /* 1..10 */
    int lazyfree_lazy_eviction;
    int lazyfree_lazy_expire;
    int lazyfree_lazy_server_del;
    int lazyfree_lazy_user_del;
    int lazyfree_lazy_user_flush;
    int replica_lazy_flush;
    unsigned long long maxmemory;
    int maxmemory_policy;
    int maxmemory_samples;
    int maxmemory_eviction_tenacity;
    int lfu_log_factor;
    int lfu_decay_time;
    int notify_keyspace_events; /* bit flags, see notify.h when it arrives */

    /* Data type encodings (used by the data types issue; accepted now) */
    long long hash_max_listpack_entries;
    long long hash_max_listpack_value;
    int list_max_listpack_size;
    int list_compress_depth;
    long long set_max_intset_entries;
    int set_max_listpack_entries;
    int set_max_listpack_value;
    long long zset_max_listpack_entries;
    long long zset_max_listpack_value;
    long long hll_sparse_max_bytes;
    long long stream_node_max_bytes;
    long long stream_node_max_entries;

    /* Persistence (accepted now; snapshots and AOF arrive later) */
    saveParam *saveparams;
    int saveparamslen;
    int appendonly;
    char *appendfilename;
    char *appenddirname;
    int appendfsync;
    char *rdb_filename;        /* dbfilename */
    int rdb_compression;
    int snapshot_compression;  /* SNAPSHOT_COMPRESSION_*: a zstd/lz4 frame around the whole RDB */
    int rdb_checksum;
    int stop_writes_on_bgsave_err;
    int rdb_del_sync_files;
    int aof_no_fsync_on_rewrite;
    int aof_rewrite_perc;
    long long aof_rewrite_min_size;
    int aof_load_truncated;
    int aof_use_rdb_preamble;
    int aof_timestamp_enabled;
    int aof_preallocate; /* cairn: the always writer pads ahead (aof_prealloc.c) */
    int sanitize_dump_payload;

    /* Monitoring */
    long long slowlog_log_slower_than; /* microseconds, -1 disables */
    unsigned long slowlog_max_len;
    long long latency_monitor_threshold;
    int latency_tracking_enabled;
    unsigned int socket_mark_id; /* accepted; TCP sockets are not marked yet */
    char *server_cpulist, *bio_cpulist, *aof_rewrite_cpulist, *bgsave_cpulist; /* devcpuApply */
    char **rename_command; /* rename-command pairs: old, new ("" = removed) */
    int rename_command_len; /* strings, twice the pairs */
    double *latency_percentiles; /* latency-tracking-info-percentiles */
    int latency_percentiles_len;
    /* Hidden (CONFIG GET by exact name only), for Redis' own test suite:
     * accepted and shown, not acted upon until snapshots exist. */
    int rdb_key_save_delay, key_load_delay, watchdog_period, use_exit_on_panic;
    long long loading_process_events_interval_bytes;
    int cluster_enabled;       /* only "no" accepted */
    int jemalloc_bg_thread;
    int oom_score_adj;
    int disable_thp;
    int active_defrag_enabled;
    long long lua_time_limit;  /* busy-reply-threshold, ms */
    long long acllog_max_len;

    /* Accepted for compatibility (tools CONFIG GET/SET them); no behaviour
     * yet unless a module picks them up. */
    int syslog_facility;       /* LOG_USER / LOG_LOCAL0..7 from <syslog.h> */
    char *acl_filename;        /* aclfile, "" = none */
    int acl_pubsub_default;    /* ACL_PUBSUB_* */
    char *bind_source_addr;    /* NULL: none */
    char *ignore_warnings;
    long long maxmemory_clients; /* bytes; negative = percent of maxmemory */
    unsigned long long tracking_table_max_keys;
    int propagation_error_behavior; /* PROPAGATION_ERR_BEHAVIOR_* */
    int oom_score_adj_values[3];    /* master, replica, background child */
    int active_defrag_cycle_min;
    int active_defrag_cycle_max;
    unsigned long long active_defrag_ignore_bytes;
    long long active_defrag_max_scan_fields;
    int active_defrag_threshold_lower;
    int active_defrag_threshold_upper;
    int rdb_save_incremental_fsync;
    int aof_rewrite_incremental_fsync;
    int aof_disable_auto_gc;

    /* Replication (arrives later; values are only stored) */
    char *masterauth;          /* NULL: none; an sds (may hold NUL bytes) */
    char *masteruser;          /* NULL: none */
    long long repl_backlog_size;
    long long repl_backlog_time_limit; /* repl-backlog-ttl, seconds */
    int repl_timeout;
    int repl_ping_replica_period;
    int repl_diskless_sync;
    int repl_diskless_sync_delay;
    int repl_diskless_sync_max_replicas;
    int repl_diskless_load;    /* REPL_DISKLESS_LOAD_* */
    int repl_compression;      /* SNAPSHOT_COMPRESSION_*: the diskless payload to cairn replicas */
    long long repl_spill_max_size; /* bytes of a full sync's stream on disk (0: no cap) */
    int repl_disable_tcp_nodelay;
    int replica_read_only;
    int replica_serve_stale_data;
    int replica_priority;
    int replica_ignore_maxmemory;
    int replica_announced;
    char *replica_announce_ip; /* NULL: none */
    int replica_announce_port;
    int replica_ignore_disk_write_errors;
    int min_replicas_to_write;
    int min_replicas_max_lag;
} cairnConfig;

extern cairnConfig cfg;

/* Runtime-change hooks. main.c (or the owning module) fills the ones it
 * cares about at start-up; config.c calls a hook after CONFIG SET has stored
 * a changed value (never while loading the file: the server reads cfg once
 * it starts). A hook returns 1 on success, or 0 with *err set, in which case
 * CONFIG SET restores the previous values of every parameter of that call,
 * calls the hooks again for the restored values, and replies with *err.
 * port, bind and maxclients cannot change while their hook is NULL (the
 * listeners and the event loop size must follow them): CONFIG SET still
 * validates the value, then fails with "can't set immutable config". */
typedef int configApplyFn(const char **err);
typedef struct configHooks {
    configApplyFn *apply_maxclients;     /* cfg.maxclients: adjust fd limit */
    configApplyFn *apply_hz;             /* cfg.hz (already clamped 1..500) */
    configApplyFn *apply_watchdog;       /* cfg.watchdog_period: arm or disarm SIGALRM */
    configApplyFn *apply_dir;            /* after chdir (done by config.c) */
    configApplyFn *apply_requirepass;    /* cfg.requirepass */
    configApplyFn *apply_loglevel;       /* cfg.verbosity */
    configApplyFn *apply_maxmemory;      /* cfg.maxmemory */
    configApplyFn *apply_port;           /* cfg.port: re-listen */
    configApplyFn *apply_bind;           /* cfg.bindaddr: re-listen */
    configApplyFn *apply_tls_port;       /* cfg.tls_port: re-listen (and load TLS if new) */
    configApplyFn *apply_tls;            /* any other tls-*: rebuild the SSL contexts */
    configApplyFn *apply_oom_score_adj;  /* oom-score-adj and -values */
    configApplyFn *apply_proc_title;     /* proc-title-template */
    configApplyFn *apply_jemalloc_bg_thread;
    configApplyFn *apply_appendonly;     /* start (a rewrite) or stop the AOF */
    configApplyFn *apply_appendfsync;    /* settle the AOF writer for the new policy */
    configApplyFn *apply_aof_auto_gc;    /* aof-disable-auto-gc no: delete history files now */
} configHooks;
extern configHooks cfgHooks;

/* Fill cfg with defaults (before loading a file). */
void configInitDefaults(void);
/* Load `path` (may be NULL) then apply `overrides` (the text built from the
 * command line, one directive per line). On error prints the file, line,
 * directive and reason to stderr and exits(1). */
void configLoad(const char *path, const char *overrides);
/* Load config text the same way without exiting: 0, or -1 with *err set to
 * the message configLoad would print (the caller frees it). Lines after the
 * bad one are not applied; the ones before it are. */
int configLoadText(const char *text, sds *err);
/* The absolute path of the config file in use, or NULL. */
const char *configFilePath(void);
/* CONFIG command. */
struct client;
void configCommand(struct client *c);
/* Rewrite the config file keeping comments and unknown lines; 0 on success,
 * -1 with errno set on failure. */
int configRewrite(const char *path);
/* Same, writing every directive even at its default (DEBUG
 * CONFIG-REWRITE-FORCE-ALL). */
int configRewriteForceAll(const char *path);
/* Turn the command-line arguments argv[start..argc-1] into config text the
 * way Redis does: every "--name" starts a line "name", each following
 * argument is appended after a space (bare if it is a plain word, else
 * quoted with sdscatrepr, so `--save ""` survives), every line ends in "\n".
 * `--port 7000 --save ""` gives "port 7000\nsave \"\"\n". A lone "-" as the
 * first or last argument reads further config text from stdin, placed before
 * the options. The caller frees the result. */
sds configArgvToOverrides(int argc, char **argv, int start);

/* enable-debug-command / enable-protected-configs / enable-module-command
 * policy (DEBUG_CMD_*): may client c do the protected action? */
int configAllowProtectedAction(int setting, struct client *c);
/* Provided by main.c: CONFIG RESETSTAT. */
void resetServerStats(void);

#endif
