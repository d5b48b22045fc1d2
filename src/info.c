/* info: the INFO command and the statistics it reads (error counts, the
 * instantaneous ops/sec samples).
 *
 * Counters are written all over the server into `server`; this file only
 * formats them, in Redis' field names, so monitoring tools and client
 * libraries that parse INFO work unchanged. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "evict.h"
#include "info.h"
#include "script.h"
#include "function.h"
#include "script_lua.h"
#include "object.h"
#include "pubsub.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "shutdown_wait.h"
#include "tracking.h"
#include "util.h"
#include "zmalloc.h"
#include "lazyfree.h"
#include "latency.h"
#include "propagate.h"
#include "snapshot.h"
#include "aof.h"
#include "child.h"
#include "repl.h"
#include "migrate.h"
#include "replica_expire.h"

#include <stdio.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#define ERROR_STATS_MAX 128 /* distinct error codes tracked, as in Redis */

dictType errorsDictType = {dictSdsCaseHash, NULL, NULL, dictSdsKeyCaseCompare, dictSdsDestructor,
                           NULL, NULL};

void errorStatIncr(const char *err, size_t len) {
    if (!server.errors) server.errors = dictCreate(&errorsDictType);
    sds code = sdsnewlen(err, len);
    dictEntry *de = dictFind(server.errors, code);
    if (de) {
        de->v.u64++;
        sdsfree(code);
    } else if (dictSize(server.errors) < ERROR_STATS_MAX) {
        de = dictAddRaw(server.errors, code, NULL);
        de->v.u64 = 1;
    } else {
        sdsfree(code);
    }
}

void errorStatsReset(void) {
    if (server.errors) dictEmpty(server.errors, NULL);
}

static sds bytesToHuman(sds s, unsigned long long n) {
    double d = (double)n;
    if (n < 1024) return sdscatprintf(s, "%lluB", n);
    if (n < 1024ULL * 1024) return sdscatprintf(s, "%.2fK", d / 1024);
    if (n < 1024ULL * 1024 * 1024) return sdscatprintf(s, "%.2fM", d / (1024 * 1024));
    if (n < 1024ULL * 1024 * 1024 * 1024) return sdscatprintf(s, "%.2fG", d / (1024.0 * 1024 * 1024));
    return sdscatprintf(s, "%.2fT", d / (1024.0 * 1024 * 1024 * 1024));
}

static const char *policyName(int p) {
    static const char *names[] = {"noeviction",     "allkeys-lru",    "allkeys-lfu",
                                  "allkeys-random", "volatile-lru",   "volatile-lfu",
                                  "volatile-random", "volatile-ttl"};
    return (p >= 0 && p < 8) ? names[p] : "noeviction";
}

/* ops/sec: a ring of samples taken by the cron every 100ms. */
#define OPS_SAMPLES 16
static long long ops_samples[OPS_SAMPLES], in_samples[OPS_SAMPLES], out_samples[OPS_SAMPLES];
static int ops_idx;
static long long ops_last_time, ops_last_count, in_last, out_last;
static size_t peak_memory;

void infoTrackSamples(void) {
    long long now = mstime();
    long long t = now - ops_last_time;
    if (t < 100) return;
    long long ops = server.stat_numcommands - ops_last_count;
    long long in = server.stat_net_input_bytes - in_last;
    long long out = server.stat_net_output_bytes - out_last;
    ops_samples[ops_idx] = t > 0 ? ops * 1000 / t : 0;
    in_samples[ops_idx] = t > 0 ? in * 1000 / t : 0;
    out_samples[ops_idx] = t > 0 ? out * 1000 / t : 0;
    ops_idx = (ops_idx + 1) % OPS_SAMPLES;
    ops_last_time = now;
    ops_last_count = server.stat_numcommands;
    in_last = server.stat_net_input_bytes;
    out_last = server.stat_net_output_bytes;
    size_t used = zmalloc_used_memory();
    if (used > peak_memory) peak_memory = used;
}

static long long samplesMean(const long long *v) {
    long long sum = 0;
    for (int j = 0; j < OPS_SAMPLES; j++) sum += v[j];
    return sum / OPS_SAMPLES;
}

static long long opsPerSec(void) { return samplesMean(ops_samples); }

static int sectionWanted(dict *sections, const char *name, int all) {
    if (all) return 1;
    sds n = sdsnew(name);
    int yes = dictFind(sections, n) != NULL;
    sdsfree(n);
    return yes;
}

static sds infoServer(sds s) {
    static struct utsname name;
    if (name.sysname[0] == '\0') uname(&name);
    long long uptime = server.unixtime - server.stat_starttime;
    s = sdscatprintf(s,
                     "# Server\r\n"
                     "redis_version:%s\r\n"
                     "redis_git_sha1:00000000\r\n"
                     "redis_git_dirty:0\r\n"
                     "redis_build_id:0\r\n"
                     "redis_mode:standalone\r\n"
                     "cairn_version:%s\r\n"
                     "os:%s %s %s\r\n"
                     "arch_bits:%d\r\n"
                     "monotonic_clock:POSIX clock_gettime\r\n"
                     "multiplexing_api:epoll\r\n"
                     "atomicvar_api:c11-builtin\r\n"
                     "gcc_version:%d.%d.%d\r\n"
                     "process_id:%ld\r\n"
                     "process_supervised:no\r\n"
                     "run_id:%s\r\n"
                     "tcp_port:%d\r\n"
                     "server_time_usec:%lld\r\n"
                     "uptime_in_seconds:%lld\r\n"
                     "uptime_in_days:%lld\r\n"
                     "hz:%d\r\n"
                     "configured_hz:%d\r\n"
                     "lru_clock:%u\r\n"
                     "executable:%s\r\n"
                     "config_file:%s\r\n"
                     "io_threads_active:0\r\n",
                     CAIRN_VERSION, CAIRN_OWN_VERSION, name.sysname, name.release, name.machine,
                     (int)(sizeof(void *) * 8), __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__,
                     (long)getpid(), server.runid, cfg.port, ustime(), uptime, uptime / 86400,
                     server.hz, cfg.hz, lruClock(), server.executable ? server.executable : "",
                     configFilePath() ? configFilePath() : "");
    if (shutdownWaitActive())
        s = sdscatprintf(s, "shutdown_in_milliseconds:%lld\r\n", shutdownWaitRemainingMs());
    return s;
}

static sds infoClients(sds s) {
    size_t maxin = 0, maxout = 0;
    /* Clients held by CLIENT PAUSE count as blocked, as in Redis (tools
     * and tests watch blocked_clients to see a pause take hold), and so do
     * those in WAIT. */
    unsigned long postponed = 0, timeouts = 0;
    for (client *c = server.clients; c; c = c->next) {
        if (sdsalloc(c->querybuf) > maxin) maxin = sdsalloc(c->querybuf);
        if (c->reply_bytes > maxout) maxout = c->reply_bytes;
        if (c->flags & (CLIENT_POSTPONED | CLIENT_REPL_WAIT)) postponed++;
        if ((c->flags & CLIENT_BLOCKED) && c->btimeout) timeouts++;
    }
    return sdscatprintf(s,
                        "# Clients\r\n"
                        "connected_clients:%lu\r\n"
                        "cluster_connections:0\r\n"
                        "maxclients:%u\r\n"
                        "client_recent_max_input_buffer:%zu\r\n"
                        "client_recent_max_output_buffer:%zu\r\n"
                        "blocked_clients:%lu\r\n"
                        "tracking_clients:%lu\r\n"
                        "clients_in_timeout_table:%lu\r\n",
                        /* as Redis: replicas are not counted */
                        server.nclients - (unsigned long)replConnectedReplicas(), cfg.maxclients, maxin, maxout,
                        server.blocked_clients + postponed, trackingClientsCount(), timeouts);
}

/* jemalloc's own statistics when it is the allocator (weak: absent with
 * the sanitizer build's libc malloc, then the fields fall back to
 * used_memory / RSS). */
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
    __attribute__((weak));

static void infoAllocatorStats(size_t *allocated, size_t *active, size_t *resident) {
    uint64_t epoch = 1;
    size_t sz = sizeof(epoch);
    if (mallctl && mallctl("epoch", &epoch, &sz, &epoch, sz) == 0) {
        sz = sizeof(size_t);
        if (mallctl("stats.allocated", allocated, &sz, NULL, 0) == 0 &&
            mallctl("stats.active", active, &sz, NULL, 0) == 0 &&
            mallctl("stats.resident", resident, &sz, NULL, 0) == 0)
            return;
    }
    *allocated = *active = zmalloc_used_memory();
    *resident = zmalloc_get_rss();
}

static size_t startup_memory;

void infoRecordStartupMemory(void) { startup_memory = zmalloc_used_memory(); }

/* What the server uses besides the data: start-up baseline, clients'
 * buffers, the propagation stream and the keyspace hash tables. */
static size_t infoClientsMemory(void) {
    size_t mem = 0;
    for (client *c = server.clients; c; c = c->next)
        mem += clientMemoryUsage(c);
    return mem;
}

static size_t infoOverheadMemory(size_t clients) {
    size_t mem = startup_memory + clients + streamMemory();
    for (int j = 0; j < cfg.dbnum; j++) {
        dict *d = server.db[j].dict, *e = server.db[j].expires;
        mem += (dictSize(d) + dictSize(e)) * sizeof(dictEntry) +
               (dictSlots(d) + dictSlots(e)) * sizeof(dictEntry *);
    }
    return mem;
}

static sds infoMemory(sds s) {
    size_t used = zmalloc_used_memory();
    size_t rss = zmalloc_get_rss();
    if (used > peak_memory) peak_memory = used;
    size_t clients = infoClientsMemory();
    size_t overhead = infoOverheadMemory(clients);
    if (overhead > used) overhead = used;
    size_t dataset = used - overhead;
    size_t net = used > startup_memory ? used - startup_memory : 0;
    size_t allocated, active, resident;
    infoAllocatorStats(&allocated, &active, &resident);
    unsigned long long sysmem = (unsigned long long)sysconf(_SC_PHYS_PAGES) *
                                (unsigned long long)sysconf(_SC_PAGESIZE);
    s = sdscatprintf(s, "# Memory\r\nused_memory:%zu\r\nused_memory_human:", used);
    s = bytesToHuman(s, used);
    s = sdscatprintf(s, "\r\nused_memory_rss:%zu\r\nused_memory_rss_human:", rss);
    s = bytesToHuman(s, rss);
    s = sdscatprintf(s, "\r\nused_memory_peak:%zu\r\nused_memory_peak_human:", peak_memory);
    s = bytesToHuman(s, peak_memory);
    s = sdscatprintf(s,
                     "\r\nused_memory_peak_perc:%.2f%%\r\n"
                     "used_memory_overhead:%zu\r\n"
                     "used_memory_startup:%zu\r\n"
                     "used_memory_dataset:%zu\r\n"
                     "used_memory_dataset_perc:%.2f%%\r\n"
                     "allocator_allocated:%zu\r\n"
                     "allocator_active:%zu\r\n"
                     "allocator_resident:%zu\r\n"
                     "total_system_memory:%llu\r\n"
                     "total_system_memory_human:",
                     peak_memory ? (double)used * 100 / peak_memory : 100.0, overhead,
                     startup_memory, dataset, net ? (double)dataset * 100 / net : 0.0, allocated,
                     active, resident, sysmem);
    s = bytesToHuman(s, sysmem);
    /* The EVAL Lua state and cache, then the functions' state. */
    long long lua_mem = scriptLuaMemory(), scripts_mem = scriptCacheMemory();
    long long fn_mem = functionsLuaMemory(), vm_total = lua_mem + fn_mem;
    s = sdscatprintf(s, "\r\nused_memory_lua:%lld\r\nused_memory_vm_eval:%lld\r\nused_memory_lua_human:",
                     lua_mem, lua_mem);
    s = bytesToHuman(s, (unsigned long long)lua_mem);
    s = sdscatprintf(s,
                     "\r\nused_memory_scripts_eval:%lld\r\n"
                     "number_of_cached_scripts:%lld\r\n"
                     "number_of_functions:%lld\r\n"
                     "number_of_libraries:%lld\r\n"
                     "used_memory_vm_functions:%lld\r\n"
                     "used_memory_vm_total:%lld\r\n"
                     "used_memory_vm_total_human:",
                     scripts_mem, scriptCacheCount(), functionsCount(), functionsLibraryCount(), fn_mem,
                     vm_total);
    s = bytesToHuman(s, (unsigned long long)vm_total);
    long long fn_cache = functionsCacheMemory();
    s = sdscatprintf(s, "\r\nused_memory_functions:%lld\r\nused_memory_scripts:%lld\r\nused_memory_scripts_human:",
                     fn_cache, scripts_mem + fn_cache);
    s = bytesToHuman(s, (unsigned long long)(scripts_mem + fn_cache));
    s = sdscat(s, "\r\n");
    s = sdscatprintf(s, "maxmemory:%llu\r\nmaxmemory_human:", cfg.maxmemory);
    s = bytesToHuman(s, cfg.maxmemory);
    /* Like Redis 7.0's shared replication buffer: the stream's blocks, while
     * a backlog or replicas read it. The backlog never holds more than
     * repl-backlog-size, so with replicas attached whatever exceeds that is
     * theirs (what lagging cursors pin; a syncing replica's share is in its
     * spill file, not here); without replicas it is all the backlog's. */
    size_t repl_total = 0, repl_backlog = 0;
    if (backlogActive() || replConnectedReplicas()) {
        repl_total = streamMemory();
        repl_backlog = repl_total;
        if (replConnectedReplicas() && repl_total > (size_t)cfg.repl_backlog_size)
            repl_backlog = (size_t)cfg.repl_backlog_size;
    }
    s = sdscatprintf(s,
                     "\r\nmaxmemory_policy:%s\r\n"
                     "allocator_frag_ratio:%.2f\r\n"
                     "allocator_frag_bytes:%zu\r\n"
                     "allocator_rss_ratio:%.2f\r\n"
                     "allocator_rss_bytes:%zd\r\n"
                     "rss_overhead_ratio:%.2f\r\n"
                     "rss_overhead_bytes:%zd\r\n"
                     "mem_fragmentation_ratio:%.2f\r\n"
                     "mem_fragmentation_bytes:%zd\r\n"
                     "mem_not_counted_for_evict:%zu\r\n"
                     "mem_replication_backlog:%zu\r\n"
                     "mem_total_replication_buffers:%zu\r\n"
                     "mem_clients_slaves:%zu\r\n"
                     "mem_clients_normal:%zu\r\n"
                     "mem_cluster_links:0\r\n"
                     "mem_aof_buffer:0\r\n"
                     "used_memory_repl_stream:%zu\r\n"
                     "mem_allocator:%s\r\n"
                     "active_defrag_running:0\r\n"
                     "lazyfree_pending_objects:%lu\r\n"
                     "lazyfreed_objects:%llu\r\n",
                     policyName(cfg.maxmemory_policy),
                     allocated ? (double)active / allocated : 0.0,
                     active > allocated ? active - allocated : 0,
                     active ? (double)resident / active : 0.0, (ssize_t)(resident - active),
                     resident ? (double)rss / resident : 0.0, (ssize_t)(rss - resident),
                     used ? (double)rss / used : 0.0, (ssize_t)(rss - used), evictNotCountedMemory(),
                     repl_backlog, repl_total, repl_total - repl_backlog, clients,
                     streamMemory(), zmalloc_lib(), lazyfreePendingObjects(),
                     lazyfreeFreedObjects());
    return s;
}

static sds infoPersistence(sds s) {
    sds rdb = rdbInfoFields(sdsempty());
    s = sdscatprintf(s,
                        "# Persistence\r\n"
                        "%s",
                        rdb);
    s = aofInfoFields(s);
    s = rdbInfoLoadingFields(s);
    sdsfree(rdb);
    return s;
}

static sds infoStats(sds s) {
    sds sync = replInfoStats(sdsempty());
    s = sdscatprintf(
        s,
        "# Stats\r\n"
        "total_connections_received:%lld\r\n"
        "total_commands_processed:%lld\r\n"
        "instantaneous_ops_per_sec:%lld\r\n"
        "total_net_input_bytes:%lld\r\n"
        "total_net_output_bytes:%lld\r\n"
        "total_net_repl_input_bytes:0\r\n"
        "total_net_repl_output_bytes:0\r\n"
        "instantaneous_input_kbps:%.2f\r\n"
        "instantaneous_output_kbps:%.2f\r\n"
        "instantaneous_input_repl_kbps:0.00\r\n"
        "instantaneous_output_repl_kbps:0.00\r\n"
        "rejected_connections:%lld\r\n"
        "%s"
        "expired_keys:%lld\r\n"
        "expired_stale_perc:0.00\r\n"
        "expired_time_cap_reached_count:%lld\r\n"
        "expire_cycle_cpu_milliseconds:0\r\n"
        "evicted_keys:%lld\r\n"
        "evicted_clients:%lld\r\n"
        "total_eviction_exceeded_time:%lld\r\n"
        "current_eviction_exceeded_time:%lld\r\n"
        "keyspace_hits:%lld\r\n"
        "keyspace_misses:%lld\r\n"
        "pubsub_channels:%lu\r\n"
        "pubsub_patterns:%lu\r\n"
        "pubsubshard_channels:%lu\r\n"
        "latest_fork_usec:%lld\r\n"
        "total_forks:%lld\r\n"
        "migrate_cached_sockets:%d\r\n"
        "slave_expires_tracked_keys:%zu\r\n"
        "active_defrag_hits:0\r\n"
        "active_defrag_misses:0\r\n"
        "active_defrag_key_hits:0\r\n"
        "active_defrag_key_misses:0\r\n"
        "total_active_defrag_time:0\r\n"
        "current_active_defrag_time:0\r\n"
        "tracking_total_keys:%lu\r\n"
        "tracking_total_items:%lu\r\n"
        "tracking_total_prefixes:%lu\r\n"
        "unexpected_error_replies:%lld\r\n"
        "total_error_replies:%lld\r\n"
        "dump_payload_sanitizations:0\r\n"
        "total_reads_processed:%lld\r\n"
        "total_writes_processed:%lld\r\n"
        "io_threaded_reads_processed:0\r\n"
        "io_threaded_writes_processed:0\r\n"
        "reply_buffer_shrinks:%lld\r\n"
        "reply_buffer_expands:%lld\r\n"
        "client_query_buffer_limit_disconnections:%lld\r\n"
        "client_output_buffer_limit_disconnections:%lld\r\n",
        server.stat_numconnections, server.stat_numcommands, opsPerSec(),
        server.stat_net_input_bytes, server.stat_net_output_bytes,
        (double)samplesMean(in_samples) / 1024, (double)samplesMean(out_samples) / 1024,
        server.stat_rejected_conn, sync, server.stat_expiredkeys,
        server.stat_expired_time_cap_reached_count, server.stat_evictedkeys,
        server.stat_evictedclients, evictTotalExceededMs(), evictCurrentExceededMs(),
        server.stat_keyspace_hits, server.stat_keyspace_misses, pubsubTotalChannels(),
        pubsubTotalPatterns(), pubsubTotalShardChannels(), childLastForkUsec(), childTotalForks(), migrateCachedSockets(), replicaExpireTracked(),
        trackingTotalKeys(), trackingTotalItems(), trackingTotalPrefixes(),
        server.stat_unexpected_error_replies, server.stat_total_error_replies,
        server.stat_io_reads_processed, server.stat_io_writes_processed,
        server.stat_reply_buffer_shrinks, server.stat_reply_buffer_expands,
        server.stat_client_qbuf_limit_disconnections, server.stat_client_outbuf_limit_disconnections);
    sdsfree(sync);
    return s;
}

static sds infoReplication(sds s) {
    s = sdscat(s, "# Replication\r\n");
    return replInfoFields(s);
}

static sds infoCpu(sds s) {
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    struct rusage thread; /* the event loop's thread: the whole work, no I/O threads */
    getrusage(RUSAGE_THREAD, &thread);
    return sdscatprintf(s,
                        "# CPU\r\n"
                        "used_cpu_sys:%ld.%06ld\r\n"
                        "used_cpu_user:%ld.%06ld\r\n"
                        "used_cpu_sys_children:%ld.%06ld\r\n"
                        "used_cpu_user_children:%ld.%06ld\r\n"
                        "used_cpu_sys_main_thread:%ld.%06ld\r\n"
                        "used_cpu_user_main_thread:%ld.%06ld\r\n",
                        (long)self.ru_stime.tv_sec, (long)self.ru_stime.tv_usec,
                        (long)self.ru_utime.tv_sec, (long)self.ru_utime.tv_usec,
                        (long)children.ru_stime.tv_sec, (long)children.ru_stime.tv_usec,
                        (long)children.ru_utime.tv_sec, (long)children.ru_utime.tv_usec,
                        (long)thread.ru_stime.tv_sec, (long)thread.ru_stime.tv_usec,
                        (long)thread.ru_utime.tv_sec, (long)thread.ru_utime.tv_usec);
}

static sds infoCommandStat(sds s, cairnCommand *c) {
    if (c->calls || c->rejected_calls || c->failed_calls) {
        sds name = sdsdup(c->fullname);
        s = sdscatprintf(s,
                         "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,"
                         "failed_calls=%lld\r\n",
                         name, c->calls, c->microseconds,
                         c->calls ? (double)c->microseconds / c->calls : 0.0, c->rejected_calls,
                         c->failed_calls);
        sdsfree(name);
    }
    for (cairnCommand *sub = c->subcommands; sub && sub->name; sub++) s = infoCommandStat(s, sub);
    return s;
}

static sds infoCommandStats(sds s) {
    s = sdscat(s, "# Commandstats\r\n");
    for (cairnCommand *c = server.commands_list; c->name; c++) s = infoCommandStat(s, c);
    return s;
}

static sds infoErrorStats(sds s) {
    s = sdscat(s, "# Errorstats\r\n");
    if (!server.errors) return s;
    dictIterator di;
    dictInitIterator(&di, server.errors);
    dictEntry *de;
    while ((de = dictNext(&di)) != NULL)
        s = sdscatprintf(s, "errorstat_%s:count=%llu\r\n", (char *)dictGetKey(de),
                         (unsigned long long)de->v.u64);
    dictResetIterator(&di);
    return s;
}

static sds infoKeyspace(sds s) {
    s = sdscat(s, "# Keyspace\r\n");
    for (int j = 0; j < cfg.dbnum; j++) {
        long long keys = dictSize(server.db[j].dict), vkeys = dictSize(server.db[j].expires);
        if (keys || vkeys)
            s = sdscatprintf(s, "db%d:keys=%lld,expires=%lld,avg_ttl=%lld\r\n", j, keys, vkeys,
                             server.db[j].avg_ttl);
    }
    return s;
}

static const char *defaultSections[] = {"server", "clients", "memory", "persistence", "stats",
                                        "replication", "cpu", "module_list", "errorstats",
                                        "cluster", "keyspace", NULL};

/* Build the INFO text for the requested sections, in Redis' order. */
static sds infoBuild(dict *sections, int all) {
    sds s = sdsempty();
    struct {
        const char *name;
        sds (*fn)(sds);
    } parts[] = {{"server", infoServer},          {"clients", infoClients},
                 {"memory", infoMemory},          {"persistence", infoPersistence},
                 {"stats", infoStats},            {"replication", infoReplication},
                 {"cpu", infoCpu},                {"module_list", NULL},
                 {"commandstats", infoCommandStats}, {"errorstats", infoErrorStats},
                 {"latencystats", latencyInfoSection}, {"cluster", NULL},
                 {"keyspace", infoKeyspace},      {NULL, NULL}};
    for (int j = 0; parts[j].name; j++) {
        int modules = !strcmp(parts[j].name, "module_list");
        /* "modules" (what "everything" adds) also shows the module list. */
        if (!sectionWanted(sections, parts[j].name, all) &&
            !(modules && sectionWanted(sections, "modules", 0)))
            continue;
        if (sdslen(s)) s = sdscat(s, "\r\n");
        if (parts[j].fn) s = parts[j].fn(s);
        else if (modules) s = sdscat(s, "# Modules\r\n");
        else s = sdscat(s, "# Cluster\r\ncluster_enabled:0\r\n");
    }
    return s;
}

sds infoGenerate(sds info, const char *section, int all, int everything) {
    (void)info;
    dict *sections = dictCreate(&errorsDictType);
    if (section) dictAdd(sections, sdsnew(section), NULL);
    sds s = infoBuild(sections, all || everything);
    dictRelease(sections);
    return s;
}

/* A section named twice (INFO server server, or a default section next to
 * "default") is kept once; the dict does not take the duplicate key. */
static void sectionAdd(dict *sections, const char *name) {
    sds key = sdsnew(name);
    if (dictAdd(sections, key, NULL) != DICT_OK) sdsfree(key);
}

void infoCommand(client *c) {
    dict *sections = dictCreate(&errorsDictType);
    int all = 0, defaults = c->argc == 1;
    for (int j = 1; j < c->argc; j++) {
        sds name = sdsdup(c->argv[j]->ptr);
        sdstolower(name);
        if (!strcmp(name, "all")) {
            all = 1;
            /* "all" excludes modules, which only "everything" adds. */
        } else if (!strcmp(name, "everything")) {
            all = 1;
            sectionAdd(sections, "modules");
        } else if (!strcmp(name, "default")) {
            defaults = 1;
        } else {
            sectionAdd(sections, name);
        }
        sdsfree(name);
    }
    if (defaults)
        for (int j = 0; defaultSections[j]; j++) sectionAdd(sections, defaultSections[j]);
    sds s = infoBuild(sections, all);
    dictRelease(sections);
    replyVerbatim(c, s, sdslen(s), "txt");
    sdsfree(s);
}
