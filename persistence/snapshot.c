/* snapshot: when snapshots are taken and loaded, and the commands that
 * drive them. The format itself lives in rdb.c / rdb_load.c, the fork in
 * child.c.
 *
 * A BGSAVE: rdbSaveBackground forks (child.c); the child closes the
 * listening sockets, writes temp-<pid>.rdb in `dir` through rdbSaveFile
 * (fsync, rename over `dbfilename`, fsync of the directory) and exits 0 or
 * 1. The parent keeps serving; rdbCron reaps the child, and on success
 * counts the changes made since the fork as still unsaved and moves
 * LASTSAVE. SAVE, the final save at shutdown, FLUSHALL (with save points)
 * and DEBUG RELOAD run rdbSaveFile in the main process. The child reports
 * keys written and its copy-on-write size through the child-info pipe
 * (child_info.c), drained by rdbCron for INFO.
 *
 * The start-up load serves clients between keys (rdbLoadProgress ->
 * processEventsWhileBlocked; commandProcess answers -LOADING) and keeps
 * the loading_* INFO fields; nothing may save while it runs.
 *
 * server.dirty itself only ever grows (commandCall propagates a command
 * when it moved): "changes since the last save" is its distance from
 * saved_dirty, the value it had when the last saved data was taken.
 *
 * Includes client.h and server_state.h (like aof.c): it replies to
 * clients and reads the server's dirty counter, clock and listeners. The
 * state below (times, statuses, counters) is owned here and read by INFO. */
#include "args.h"
#include "client.h"
#include "config.h"
#include "dict.h"
#include "log.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "child.h"
#include "child_info.h"
#include "db.h"
#include "rdb.h"
#include "snapshot.h"
#include "aof.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define RDB_BGSAVE_RETRY_DELAY 5 /* seconds before a save point retries a failed BGSAVE */

static struct {
    long long saved_dirty;   /* server.dirty when the last saved dataset was taken */
    long long dirty_before_bgsave;
    time_t lastsave;         /* last successful save (LASTSAVE) */
    time_t lastbgsave_try;
    int lastbgsave_status;   /* C_OK or C_ERR */
    long long saves;         /* rdb_saves */
    time_t save_time_start;  /* -1: no BGSAVE running */
    time_t save_time_last;   /* seconds the last BGSAVE took, -1: none */
    int bgsave_scheduled;
    long long last_load_keys_loaded, last_load_keys_expired;
    /* From the child-info pipe while a BGSAVE runs (0 otherwise), and the
     * final copy-on-write size of the last one. */
    size_t cow_current, cow_peak, last_cow;
    long long cow_updated_ms; /* 0: no report yet */
    long long keys_processed, keys_total;
    int inited;
} rs;

static rdbChildDoneFn *repl_child_done;
void rdbSetReplChildDone(rdbChildDoneFn *fn) { repl_child_done = fn; }

static rdbReplInfo startup_repl;
static int startup_has_repl;
/* Keys the start-up load dropped as expired (owned here until
 * rdbStartupTakeExpired): only kept when the snapshot has repl info. */
static struct {
    sds *keys;
    int *dbids;
    size_t len, cap;
} startup_expired;

static void rdbStartupNoteExpired(int dbid, sds key) {
    if (startup_expired.len == startup_expired.cap) {
        startup_expired.cap = startup_expired.cap ? startup_expired.cap * 2 : 64;
        startup_expired.keys = zrealloc(startup_expired.keys, startup_expired.cap * sizeof(sds));
        startup_expired.dbids = zrealloc(startup_expired.dbids, startup_expired.cap * sizeof(int));
    }
    startup_expired.keys[startup_expired.len] = key;
    startup_expired.dbids[startup_expired.len++] = dbid;
}

void rdbStartupTakeExpired(rdbLoadExpiredFn *fn) {
    for (size_t j = 0; j < startup_expired.len; j++) {
        if (fn)
            fn(startup_expired.dbids[j], startup_expired.keys[j]);
        else
            sdsfree(startup_expired.keys[j]);
    }
    zfree(startup_expired.keys);
    zfree(startup_expired.dbids);
    memset(&startup_expired, 0, sizeof(startup_expired));
}

static void rdbStateInit(void) {
    if (rs.inited) return;
    rs.inited = 1;
    rs.lastsave = time(NULL); /* as Redis: at start-up the dataset counts as saved */
    rs.lastbgsave_status = C_OK;
    rs.save_time_start = -1;
    rs.save_time_last = -1;
}

/* ---- saving ---- */

/* A synchronous save in this process (SAVE, shutdown, DEBUG RELOAD). */
static int rdbSaveSync(void) {
    rdbStateInit();
    sds err = NULL;
    rs.saves++;
    if (rdbSaveFile(cfg.rdb_filename, &err) == -1) {
        /* Only a failed background save sets rdb_last_bgsave_status:err
         * (and MISCONF), as in Redis. */
        serverLog(LL_WARNING, "%s", err);
        sdsfree(err);
        return C_ERR;
    }
    serverLog(LL_NOTICE, "DB saved on disk");
    rs.saved_dirty = server.dirty;
    rs.lastsave = time(NULL);
    rs.lastbgsave_status = C_OK;
    return C_OK;
}

static void rdbChildCloseListeners(void) {
    for (int j = 0; j < server.listen_count; j++) close(server.listen_fds[j]);
    if (server.unix_fd != -1) close(server.unix_fd);
}

/* In the child: report keys written and copy-on-write about once a second
 * (reading smaps is not free on a big process). */
static long long child_last_report_ms;
static void rdbChildProgress(long long keys) {
    long long now = mstime();
    if (now - child_last_report_ms < 1000) return;
    child_last_report_ms = now;
    childInfoSend(CHILD_INFO_PROGRESS, keys);
}

static void rdbChildInfoReset(void) {
    rs.cow_current = rs.cow_peak = 0;
    rs.cow_updated_ms = 0;
    rs.keys_processed = rs.keys_total = 0;
}

/* Parent: take in what the BGSAVE child has reported so far. */
static void rdbChildInfoDrain(void) {
    childInfoMsg m;
    while (childInfoReceive(&m)) {
        if (childActiveType() != CHILD_TYPE_RDB && m.kind != CHILD_INFO_DONE) continue;
        rs.cow_current = m.cow_bytes;
        if (m.cow_bytes > rs.cow_peak) rs.cow_peak = m.cow_bytes;
        rs.cow_updated_ms = mstime();
        rs.keys_processed = m.keys;
        if (m.kind == CHILD_INFO_DONE) rs.last_cow = m.cow_bytes;
    }
}

static int rdbSaveBackground(void) {
    rdbStateInit();
    if (childActiveType() != CHILD_TYPE_NONE) return C_ERR;
    rs.saves++;
    rs.dirty_before_bgsave = server.dirty;
    rs.lastbgsave_try = time(NULL);
    long long total = 0;
    for (int j = 0; j < dbCount(); j++) total += (long long)dictSize(dbKeysDict(j));
    pid_t pid = childFork(CHILD_TYPE_RDB);
    if (pid == 0) {
        rdbChildCloseListeners();
        child_last_report_ms = mstime();
        rdbSaveSetProgress(rdbChildProgress);
        sds err = NULL;
        int ret = rdbSaveFile(cfg.rdb_filename, &err);
        if (ret == 0) {
            size_t cow = childInfoPrivateDirty();
            if (cow) serverLog(LL_NOTICE, "RDB: %zu MB of memory used by copy-on-write", cow >> 20);
            childInfoSend(CHILD_INFO_DONE, total);
            serverLog(LL_NOTICE, "DB saved on disk");
        } else {
            serverLog(LL_WARNING, "%s", err);
            sdsfree(err);
        }
        childExit(ret == 0 ? 0 : 1);
    }
    if (pid == -1) {
        rs.lastbgsave_status = C_ERR;
        serverLog(LL_WARNING, "Can't save in background: fork: %s", strerror(errno));
        return C_ERR;
    }
    serverLog(LL_NOTICE, "Background saving started by pid %d", (int)pid);
    rs.save_time_start = time(NULL);
    rdbChildInfoReset();
    rs.keys_total = total;
    return C_OK;
}

static void rdbBackgroundSaveDone(pid_t pid, int exitcode, int bysignal) {
    if (!bysignal && exitcode == 0) {
        serverLog(LL_NOTICE, "Background saving terminated with success");
        if (rs.dirty_before_bgsave > rs.saved_dirty) rs.saved_dirty = rs.dirty_before_bgsave;
        rs.lastsave = time(NULL);
        rs.lastbgsave_status = C_OK;
    } else if (!bysignal) {
        serverLog(LL_WARNING, "Background saving error");
        rs.lastbgsave_status = C_ERR;
    } else {
        char tmpfile[64];
        serverLog(LL_WARNING, "Background saving terminated by signal %d", bysignal);
        snprintf(tmpfile, sizeof(tmpfile), "temp-%d.rdb", (int)pid);
        unlink(tmpfile);
        /* SIGUSR1 is how the server itself cancels a save: not an error. */
        if (bysignal != SIGUSR1) rs.lastbgsave_status = C_ERR;
    }
    rs.save_time_last = time(NULL) - rs.save_time_start;
    rs.save_time_start = -1;
    rdbChildInfoReset();
}

/* Kill a running BGSAVE child and remove its temp file. */
static void rdbKillChild(void) {
    if (childActiveType() != CHILD_TYPE_RDB) return;
    pid_t pid = childPid();
    char tmpfile[64];
    childKill();
    childInfoClose();
    snprintf(tmpfile, sizeof(tmpfile), "temp-%d.rdb", (int)pid);
    unlink(tmpfile);
    rs.save_time_start = -1;
    rdbChildInfoReset();
}

void rdbCron(void) {
    rdbStateInit();
    int type, exitcode, bysignal;
    pid_t pid = childPid();
    if (childActiveType() == CHILD_TYPE_RDB) rdbChildInfoDrain();
    if (childCheckDone(&type, &exitcode, &bysignal)) {
        /* The final report was written before the child exited. */
        if (type == CHILD_TYPE_RDB) rdbChildInfoDrain();
        childInfoClose();
        if (type == CHILD_TYPE_RDB) rdbBackgroundSaveDone(pid, exitcode, bysignal);
        else if (type == CHILD_TYPE_AOF) aofRewriteDone(pid, exitcode, bysignal);
        else if (type == CHILD_TYPE_REPL && repl_child_done) repl_child_done(pid, exitcode, bysignal);
    }
    if (childActiveType() != CHILD_TYPE_NONE) return;
    time_t now = server.unixtime;
    int may_retry = now - rs.lastbgsave_try > RDB_BGSAVE_RETRY_DELAY || rs.lastbgsave_status == C_OK;
    for (int j = 0; j < cfg.saveparamslen; j++) {
        saveParam *sp = &cfg.saveparams[j];
        if (rdbChangesSinceSave() >= sp->changes && now - rs.lastsave > sp->seconds && may_retry) {
            serverLog(LL_NOTICE, "%lld changes in %lld seconds. Saving...", sp->changes, sp->seconds);
            rdbSaveBackground();
            return;
        }
    }
    if (rs.bgsave_scheduled && may_retry && rdbSaveBackground() == C_OK) rs.bgsave_scheduled = 0;
}

/* ---- commands ---- */

void saveCommand(client *c) {
    if (childActiveType() == CHILD_TYPE_RDB) {
        replyError(c, "ERR Background save already in progress");
        return;
    }
    if (rdbSaveSync() == C_OK) replyOk(c);
    else replyError(c, "ERR");
}

void bgsaveCommand(client *c) {
    int schedule = 0;
    if (c->argc > 1) {
        if (c->argc == 2 && argEq(c->argv[1], "schedule")) {
            schedule = 1;
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    if (childActiveType() == CHILD_TYPE_RDB) {
        replyError(c, "ERR Background save already in progress");
    } else if (childActiveType() != CHILD_TYPE_NONE || server.in_exec) {
        if (schedule || server.in_exec) {
            rs.bgsave_scheduled = 1;
            replyStatusC(c, "Background saving scheduled");
        } else {
            replyError(c, "ERR Another child process is active (AOF?): can't BGSAVE right now. Use "
                          "BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.");
        }
    } else if (rdbSaveBackground() == C_OK) {
        replyStatusC(c, "Background saving started");
    } else {
        replyError(c, "ERR");
    }
}

void lastsaveCommand(client *c) {
    rdbStateInit();
    replyLongLong(c, (long long)rs.lastsave);
}

long long rdbChangesSinceSave(void) {
    return server.dirty > rs.saved_dirty ? server.dirty - rs.saved_dirty : 0;
}

int rdbWritesDenied(void) {
    return cfg.stop_writes_on_bgsave_err && cfg.saveparamslen > 0 && rs.lastbgsave_status == C_ERR;
}

/* ---- loading ---- */

/* The load in progress, for INFO's loading_* fields and the progress log. */
static struct {
    int active;
    time_t start;
    long long start_ms, last_log_ms;
    size_t total_bytes, loaded_bytes;
    long long rdb_used_mem;
} ld;

#define RDB_LOAD_LOG_INTERVAL_MS 2000

void rdbLoadNoteProgress(size_t loaded, const rdbLoadStats *st) {
    ld.loaded_bytes = loaded;
    ld.rdb_used_mem = st->rdb_used_mem;
    long long now = mstime();
    if (now - ld.last_log_ms >= RDB_LOAD_LOG_INTERVAL_MS) {
        ld.last_log_ms = now;
        if (!ld.total_bytes) /* a payload read from the socket: no size */
            serverLog(LL_NOTICE, "Loading RDB: %zu bytes, %lld keys so far", loaded,
                      st->keys_loaded);
        else
            serverLog(LL_NOTICE, "Loading RDB: %zu of %zu bytes (%.2f%%), %lld keys so far", loaded,
                      ld.total_bytes, (double)loaded * 100 / (double)ld.total_bytes,
                      st->keys_loaded);
    }
}

static void rdbLoadProgress(size_t loaded, const rdbLoadStats *st) {
    rdbLoadNoteProgress(loaded, st);
    processEventsWhileBlocked();
}

void rdbLoadServedBegin(size_t total_bytes, rdbLoadProgressFn *serve) {
    rdbStateInit();
    memset(&ld, 0, sizeof(ld));
    ld.active = 1;
    ld.start = time(NULL);
    ld.start_ms = ld.last_log_ms = mstime();
    ld.total_bytes = total_bytes;
    server.loading = 1;
    rdbLoadSetProgress(serve);
}

void rdbLoadServedEnd(const rdbLoadStats *st, int ok) {
    rdbLoadSetProgress(NULL);
    server.loading = 0;
    server.async_loading = 0;
    ld.active = 0;
    if (ok) {
        rs.last_load_keys_loaded = st->keys_loaded;
        rs.last_load_keys_expired = st->keys_expired;
    }
}

/* Load the snapshot file into the keyspace (flags: RDB_LOAD_*); 0 on
 * success, 1 when there is no file, -1 with the reason logged. With serve,
 * clients are answered between keys (only at start-up: inside DEBUG RELOAD
 * the calling client is mid-command and must not be read again). */
static int rdbLoadLoggedFile(const char *filename, int flags, int serve, rdbLoadStats *out) {
    rdbLoadStats st;
    sds err = NULL;
    long long start = ustime();
    struct stat sb;
    memset(&ld, 0, sizeof(ld));
    ld.active = 1;
    ld.start = time(NULL);
    ld.start_ms = ld.last_log_ms = start / 1000;
    if (stat(filename, &sb) == 0) ld.total_bytes = (size_t)sb.st_size;
    server.loading = 1;
    if (serve) rdbLoadSetProgress(rdbLoadProgress);
    int ret = rdbLoadFile(filename, flags, &st, &err);
    if (out) *out = st;
    rdbLoadSetProgress(NULL);
    server.loading = 0;
    ld.active = 0;
    if (ret == 0) {
        rs.last_load_keys_loaded = st.keys_loaded;
        rs.last_load_keys_expired = st.keys_expired;
        /* The skipped count only when there were some, as Redis logs it. */
        if (st.empty_keys_skipped)
            serverLog(LL_WARNING, "Done loading RDB, keys loaded: %lld, keys expired: %lld, empty keys skipped: %lld.",
                      st.keys_loaded, st.keys_expired, st.empty_keys_skipped);
        else
            serverLog(LL_NOTICE, "Done loading RDB, keys loaded: %lld, keys expired: %lld.", st.keys_loaded,
                      st.keys_expired);
        serverLog(LL_NOTICE, "DB loaded from disk: %.3f seconds", (double)(ustime() - start) / 1000000);
    } else if (ret == -1) {
        serverLog(LL_WARNING, "Failed loading RDB file %s: %s", filename, err);
        sdsfree(err);
    }
    return ret;
}

static int rdbLoadLogged(int flags, int serve) {
    rdbLoadStats st;
    int ret = rdbLoadLoggedFile(cfg.rdb_filename, flags, serve, &st);
    if (ret == 0 && st.has_repl) {
        startup_repl = st.repl;
        startup_has_repl = 1;
    }
    return ret;
}

int rdbLoadReceived(const char *filename, int flags, rdbLoadStats *st) {
    rdbStateInit();
    int ret = rdbLoadLoggedFile(filename, flags, 1, st);
    return ret == 0 ? 0 : -1;
}

int rdbStartupReplInfo(rdbReplInfo *out) {
    if (!startup_has_repl) return 0;
    *out = startup_repl;
    return 1;
}

void rdbStartupLoad(void) {
    rdbStateInit();
    rdbLoadSetExpiredSink(rdbStartupNoteExpired);
    int ret = rdbLoadLogged(0, 1);
    rdbLoadSetExpiredSink(NULL);
    if (ret == -1) {
        serverLog(LL_WARNING, "Fatal error loading the DB, check server logs. Exiting.");
        exit(1);
    }
    /* Without repl info no replica can continue from this snapshot, so
     * nobody needs to hear of the keys it dropped. */
    if (!startup_has_repl) rdbStartupTakeExpired(NULL);
    rs.saved_dirty = server.dirty;
}

void rdbDebugReload(client *c) {
    int flush = 1, save = 1, flags = 0;
    /* From a client served during the start-up load: saving would write
     * the half-loaded dataset over the file being read. */
    if (server.loading) {
        replyError(c, "LOADING Redis is loading the dataset in memory");
        return;
    }
    for (int j = 2; j < c->argc; j++) {
        if (argEq(c->argv[j], "merge")) flags |= RDB_LOAD_REPLACE;
        else if (argEq(c->argv[j], "noflush")) flush = 0;
        else if (argEq(c->argv[j], "nosave")) save = 0;
        else {
            replyError(c, "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
            return;
        }
    }
    /* A BGSAVE child still writing the old data would rename its file over
     * the one about to be loaded. */
    rdbKillChild();
    long long saves = rs.saves; /* not counted in rdb_saves, as in Redis */
    int failed = save && rdbSaveSync() != C_OK;
    rs.saves = saves;
    if (failed) {
        replyError(c, "ERR Error trying to save the DB");
        return;
    }
    /* MERGE reloads over the live data, replacing keys it finds in the file. */
    if (flags & RDB_LOAD_REPLACE) flush = 0;
    if (flush) {
        dbEmpty(-1, 0);
        rdbFunctionsClear();
        for (int j = 0; j < cfg.dbnum; j++) signalFlushedDb(j);
    }
    if (rdbLoadLogged(flags, 0) != 0) {
        replyError(c, "ERR Error trying to load the RDB dump, check server logs.");
        return;
    }
    serverLog(LL_NOTICE, "DB reloaded by DEBUG RELOAD");
    replyOk(c);
}

void rdbFlushallSave(void) {
    rdbStateInit();
    rdbKillChild();
    if (cfg.saveparamslen > 0) rdbSaveSync();
}

/* ---- shutdown ---- */

int rdbShutdown(int flags) {
    rdbStateInit();
    if (childActiveType() == CHILD_TYPE_RDB) {
        serverLog(LL_WARNING, "There is a child saving an .rdb. Killing it!");
        rdbKillChild();
    }
    if ((cfg.saveparamslen > 0 && !(flags & SHUTDOWN_NOSAVE)) || (flags & SHUTDOWN_SAVE)) {
        serverLog(LL_NOTICE, "Saving the final RDB snapshot before exiting.");
        if (rdbSaveSync() != C_OK) {
            if (flags & SHUTDOWN_FORCE) {
                serverLog(LL_WARNING, "Error trying to save the DB, exiting anyway.");
            } else {
                serverLog(LL_WARNING, "Error trying to save the DB, can't exit.");
                return -1;
            }
        }
    }
    return 0;
}

/* ---- INFO ---- */

sds rdbInfoFields(sds s) {
    rdbStateInit();
    int running = childActiveType() == CHILD_TYPE_RDB;
    /* A full sync's snapshot child is a BGSAVE too, as Redis reports it. */
    int repl_child = childActiveType() == CHILD_TYPE_REPL;
    long long current = -1;
    if (running && rs.save_time_start != -1) current = (long long)(time(NULL) - rs.save_time_start);
    else if (repl_child) current = (long long)time(NULL) - childStartTime();
    return sdscatprintf(s,
                        "loading:%d\r\n"
                        "async_loading:%d\r\n"
                        "current_cow_peak:%zu\r\n"
                        "current_cow_size:%zu\r\n"
                        "current_cow_size_age:%lld\r\n"
                        "current_fork_perc:%.2f\r\n"
                        "current_save_keys_processed:%lld\r\n"
                        "current_save_keys_total:%lld\r\n"
                        "rdb_changes_since_last_save:%lld\r\n"
                        "rdb_bgsave_in_progress:%d\r\n"
                        "rdb_last_save_time:%lld\r\n"
                        "rdb_last_bgsave_status:%s\r\n"
                        "rdb_last_bgsave_time_sec:%lld\r\n"
                        "rdb_current_bgsave_time_sec:%lld\r\n"
                        "rdb_saves:%lld\r\n"
                        "rdb_last_cow_size:%zu\r\n"
                        "rdb_last_load_keys_expired:%lld\r\n"
                        "rdb_last_load_keys_loaded:%lld\r\n",
                        server.loading && !server.async_loading, server.async_loading,
                        rs.cow_peak, rs.cow_current,
                        rs.cow_updated_ms ? (mstime() - rs.cow_updated_ms) / 1000 : 0LL,
                        rs.keys_total ? (double)rs.keys_processed * 100 / (double)rs.keys_total : 0.0,
                        rs.keys_processed, rs.keys_total, rdbChangesSinceSave(), running || repl_child,
                        (long long)rs.lastsave, rs.lastbgsave_status == C_OK ? "ok" : "err",
                        (long long)rs.save_time_last, current,
                        rs.saves, rs.last_cow, rs.last_load_keys_expired, rs.last_load_keys_loaded);
}

/* Redis prints these only while loading, at the end of the section. */
sds rdbInfoLoadingFields(sds s) {
    if (!server.loading || !ld.active) return s;
    size_t total = ld.total_bytes, loaded = ld.loaded_bytes;
    /* A compressed file reports decompressed bytes read: keep under 100%. */
    if (loaded > total) total = loaded;
    double perc = total ? (double)loaded * 100 / (double)total : 0.0;
    long long elapsed = (mstime() - ld.start_ms) / 1000;
    long long eta = (long long)((double)elapsed * (double)(total - loaded) / (double)(loaded + 1));
    return sdscatprintf(s,
                        "loading_start_time:%lld\r\n"
                        "loading_total_bytes:%zu\r\n"
                        "loading_rdb_used_mem:%lld\r\n"
                        "loading_loaded_bytes:%zu\r\n"
                        "loading_loaded_perc:%.2f\r\n"
                        "loading_eta_seconds:%lld\r\n",
                        (long long)ld.start, total, ld.rdb_used_mem, loaded, perc, eta);
}
