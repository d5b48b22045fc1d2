/* aof: the server side of the append-only file (interface in aof.h).
 *
 * What it owns: the AOF's state (`aof`, declared in aof_internal.h), with
 * the manifest in memory (aof.am), the open incremental file (aof.fd), a
 * cursor into the propagation stream (aof.cur), the fsync state, the
 * rewrite child's bookkeeping and every aof_* INFO field. The appendfsync
 * always writer and the held replies are aof_always.c's.
 *
 * How data enters: every write is already encoded once into the
 * propagation stream (propagate.c); the AOF only reads it. Each loop turn
 * aofBeforeSleep takes the unread bytes through the cursor:
 *   - appendfsync no / everysec: write(2) here on the main thread; under
 *     everysec a bio job (BIO_AOF_FSYNC) fsyncs about once a second. While
 *     an fsync is still running the write waits, at most 2 s
 *     (aof_delayed_fsync counts the times it stopped waiting).
 *   - appendfsync always: aofAlwaysKick (aof_always.c) hands the bytes to
 *     the writer thread as one group commit; replies are held until the
 *     fsync covering them completes.
 * How data leaves: the files in `appenddirname`, loaded at start-up by
 * aofStartupLoad (aof_load.c replays each one).
 *
 * The AOF's state (aof.state) and the rewrite, with the function behind
 * each transition:
 *
 *          aofStart (CONFIG SET appendonly yes)     aofRewriteDone(ok)
 *   OFF ---------------------------------> WAIT_REWRITE --------------> ON
 *    ^  <------ aofStop (appendonly no) ------+---------------------------+
 *    |          aofStartupLoad (appendonly yes at start-up) ---------> ON
 *
 *               aofRewriteStart                   aofRewriteDone(ok)
 *   no child -------------------> child writing ------------------> no child
 *   (BGREWRITEAOF,                the base           (base renamed, manifest
 *    aofCron: auto or                                 swapped, history deleted)
 *    scheduled)                   aofRewriteDone(failed) / aofKillRewrite:
 *                                 temp file removed, manifest unchanged
 *
 * aofRewriteStart flushes and fsyncs the current incremental file, opens
 * the next one and (state ON) persists a manifest listing it, then forks:
 * the child writes temp-rewriteaof-bg-<pid>.aof (an RDB, or RESTORE
 * commands) while the parent appends to the new file exactly the writes
 * made after the fork. aofRewriteDone renames the temp file to the next
 * base, makes the old base and incremental files history, swaps the
 * manifest atomically (aofManifestPersist: temp file, fsync, rename, fsync
 * of the directory) and only then deletes history files. A failed or
 * killed child loses nothing: the new incremental file stays listed. In
 * WAIT_REWRITE the manifest on disk is left alone until a base exists.
 *
 * Includes client.h and server_state.h (like snapshot.c): it holds
 * clients, reads the server's counters and listeners, and replies to
 * BGREWRITEAOF. */
#define _GNU_SOURCE
#include "client.h"
#include "config.h"
#include "dict.h"
#include "event.h"
#include "log.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "aof.h"
#include "aof_internal.h"
#include "aof_load.h"
#include "aof_manifest.h"
#include "bio.h"
#include "child.h"
#include "db.h"
#include "dump.h"
#include "propagate.h"
#include "rdb.h"
#include "rio.h"
#include "skip_fsync.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define AOF_AUTOSYNC_BYTES (4 * 1024 * 1024)
/* A failed rewrite is retried automatically after 5 s, doubling with each
 * consecutive failure up to 10 minutes (a full disk stays full for a while;
 * each attempt forks and writes the whole dataset). */
#define AOF_REWRITE_RETRY_DELAY 5
#define AOF_REWRITE_RETRY_MAX 600

int aof_hold_active = 0;

aofState aof;

/* Test hook: the environment variable CAIRN_DEBUG_AOF_FSYNC_DELAY_MS makes
 * every AOF fsync on the bio thread take that much longer (a slow disk),
 * so tests can watch replies wait while the loop keeps serving. */
static int debug_fsync_delay_ms;

/* DEBUG AOF-FLUSH-SLEEP <microseconds>: the loop sleeps that long before it
 * writes new stream bytes to the AOF (Redis' tests use it to check that
 * replies never overtake the write). */
static long long debug_flush_sleep_us;

void aofDebugSetFlushSleep(long long us) { debug_flush_sleep_us = us > 0 ? us : 0; }

void aofDebugDelay(void) {
    if (debug_fsync_delay_ms) usleep((useconds_t)debug_fsync_delay_ms * 1000);
}

/* fdatasync calls on the AOF, from any thread (INFO cairn_aof_fsyncs:
 * with the write commands of a run it gives writes per fsync). */
static long long stat_fsyncs;

/* Written by the fsync job on the bio thread, read by the loop. */
static int bio_fsync_status = C_OK, bio_fsync_errno = 0;

static const char *aofDir(void) { return cfg.appenddirname; }

static int aofWriteExtra(const char *p, size_t len);
static int aofStampNewFile(void);

/* Replies wait for fsyncs only once the AOF holds the whole dataset: while
 * a just-enabled AOF writes its first base (WAIT_REWRITE) nothing is
 * durable yet, and, as in Redis, replies are not held. */
static void aofUpdateHold(void) {
    aof_hold_active = aof.state == AOF_ON && cfg.appendfsync == APPENDFSYNC_ALWAYS;
    aofAlwaysActive(aof.state != AOF_OFF && cfg.appendfsync == APPENDFSYNC_ALWAYS);
}

/* ---- files ---- */

static long long fileSize(const char *path) {
    struct stat st;
    return stat(path, &st) == -1 ? 0 : (long long)st.st_size;
}

static long long manifestFileSize(const char *name) {
    sds p = aofPath(aofDir(), name);
    long long n = fileSize(p);
    sdsfree(p);
    return n;
}

static long long manifestTotalSize(const aofManifest *am) {
    long long n = am->base ? manifestFileSize(am->base->name) : 0;
    for (int j = 0; j < am->nincr; j++) n += manifestFileSize(am->incr[j]->name);
    return n;
}

/* A new directory's own entry is durable only once its parent is fsynced:
 * without that a power cut can take the whole AOF with it, however often
 * the files inside were fsynced (found by tests/integration/powerloss.tcl). */
static int aofMkdir(void) {
    if (mkdir(aofDir(), 0755) == -1) {
        if (errno == EEXIST) return 0;
        serverLog(LL_WARNING, "Can't create the append-only directory %s: %s", aofDir(), strerror(errno));
        return -1;
    }
    sds parent = sdsnew(aofDir());
    char *slash = strrchr(parent, '/');
    if (slash) sdsrange(parent, 0, slash == parent ? 0 : slash - parent - 1);
    else parent = sdscpy(parent, ".");
    int ret = aofFsyncDir(parent);
    if (ret == -1)
        serverLog(LL_WARNING, "Can't fsync %s after creating the append-only directory %s: %s",
                  parent, aofDir(), strerror(errno));
    sdsfree(parent);
    return ret;
}

/* fresh: a new file, which must start empty (a crash may have left one of
 * that name that no manifest lists); else the last file, reopened. Not
 * O_APPEND: every write is positioned at aof.incr_size, which under always
 * may be inside the pad (aof_prealloc.c). */
static int aofOpenIncr(const char *name, int fresh) {
    sds p = aofPath(aofDir(), name);
    int fd = open(p, O_WRONLY | O_CREAT | (fresh ? O_TRUNC : 0), 0644);
    if (fd == -1) serverLog(LL_WARNING, "Can't open the append-only file %s: %s", p, strerror(errno));
    sdsfree(p);
    return fd;
}

/* A bio job: fsync and/or close a file descriptor. An everysec fsync also
 * carries the stream offset that the file holds up to (off, else -1): once
 * the fsync succeeded, that prefix is durable (bio_fsynced_off), and a
 * NULL pointer on the writer pipe wakes the loop to see it (WAITAOF). */
typedef struct aofFdJob {
    int fd;
    int do_close;
    long long off;
    int pipe_wr;
} aofFdJob;

/* The AOF's data fsync (the test hook can pretend it), counted for INFO. */
int aofDatasync(int fd) {
    __atomic_fetch_add(&stat_fsyncs, 1, __ATOMIC_RELAXED);
    return skipFsync("aof") ? 0 : fdatasync(fd);
}

static long long bio_fsynced_off = -1;

static void aofFdJobRun(void *arg) {
    aofFdJob *j = arg;
    aofDebugDelay();
    int ok = 1;
    if (aofDatasync(j->fd) == -1 && errno != EBADF && errno != EINVAL) {
        ok = 0;
        __atomic_store_n(&bio_fsync_errno, errno, __ATOMIC_RELAXED);
        __atomic_store_n(&bio_fsync_status, C_ERR, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&bio_fsync_status, C_OK, __ATOMIC_RELEASE);
    }
    if (j->do_close) close(j->fd);
    if (ok && j->off >= 0) {
        __atomic_store_n(&bio_fsynced_off, j->off, __ATOMIC_RELEASE);
        void *wake = NULL;
        ssize_t w;
        do {
            w = write(j->pipe_wr, &wake, sizeof(wake));
        } while (w == -1 && errno == EINTR);
    }
    zfree(j);
}

static void aofSubmitFdJob(int fd, int do_close, long long off) {
    aofFdJob *j = zmalloc(sizeof(*j));
    j->fd = fd;
    j->do_close = do_close;
    j->off = off;
    j->pipe_wr = aof.pipe_wr;
    bioSubmit(BIO_AOF_FSYNC, aofFdJobRun, j);
}

static void aofDeleteHistory(aofManifest *am) {
    if (cfg.aof_disable_auto_gc || am->nhist == 0) return;
    for (int j = 0; j < am->nhist; j++) {
        sds p = aofPath(aofDir(), am->hist[j]->name);
        if (unlink(p) == 0) serverLog(LL_NOTICE, "Removing the history file %s in the background", am->hist[j]->name);
        sdsfree(p);
    }
    aofManifestClearHistory(am);
    sds err = NULL;
    if (aofManifestPersist(am, aofDir(), cfg.appendfilename, &err) == -1) {
        serverLog(LL_WARNING, "%s", err);
        sdsfree(err);
    }
}

/* ---- the base file (start-up and the rewrite child) ---- */

/* One FUNCTION LOAD <code> (the libraries come before the keys, as in
 * Redis' rewrite). */
static int aofEmitFunctionLoad(void *ctx, const char *code, size_t len) {
    sds cmd = sdscatprintf(sdsempty(), "*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$%zu\r\n", len);
    cmd = sdscatlen(cmd, code, len);
    cmd = sdscatlen(cmd, "\r\n", 2);
    int ok = rioWrite(ctx, cmd, sdslen(cmd));
    sdsfree(cmd);
    return ok ? 0 : -1;
}

/* The dataset as RESTORE commands (aof-use-rdb-preamble no): every type in
 * one short path, replayed by Redis 7.0 and cairn alike. */
static int aofWriteCommandsBase(rio *r) {
    long long now = mstime();
    if (cfg.aof_timestamp_enabled) {
        /* the time the dataset was taken, as the first line (as Redis) */
        char ts[32];
        int tl = snprintf(ts, sizeof(ts), "#TS:%lld\r\n", (long long)time(NULL));
        if (!rioWrite(r, ts, (size_t)tl)) return -1;
    }
    if (rdbFunctionsEach(aofEmitFunctionLoad, r) == -1) return -1;
    for (int j = 0; j < dbCount(); j++) {
        dict *d = dbKeysDict(j), *expires = dbExpiresDict(j);
        if (dictSize(d) == 0) continue;
        char num[32];
        int nl = snprintf(num, sizeof(num), "%d", j);
        sds sel = sdscatprintf(sdsempty(), "*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n", nl, num);
        int ok = rioWrite(r, sel, sdslen(sel));
        sdsfree(sel);
        if (!ok) return -1;
        dictIterator di;
        dictInitIterator(&di, d);
        dictEntry *de;
        while ((de = dictNext(&di)) != NULL) {
            sds key = dictGetKey(de);
            long long expire = 0;
            if (dictSize(expires)) {
                dictEntry *e = dictFind(expires, key);
                if (e) expire = dictGetSignedIntegerVal(e);
            }
            if (expire && expire <= now) continue;
            sds payload = dumpPayloadCreate(dictGetVal(de));
            char ttl[32];
            int tl = snprintf(ttl, sizeof(ttl), "%lld", expire);
            sds cmd = sdscatprintf(sdsempty(), "*5\r\n$7\r\nRESTORE\r\n$%zu\r\n", sdslen(key));
            cmd = sdscatlen(cmd, key, sdslen(key));
            cmd = sdscatprintf(cmd, "\r\n$%d\r\n%s\r\n$%zu\r\n", tl, ttl, sdslen(payload));
            cmd = sdscatlen(cmd, payload, sdslen(payload));
            cmd = sdscat(cmd, "\r\n$6\r\nABSTTL\r\n");
            ok = rioWrite(r, cmd, sdslen(cmd));
            sdsfree(cmd);
            sdsfree(payload);
            if (!ok) break;
        }
        dictResetIterator(&di);
        if (!ok) return -1;
    }
    return 0;
}

/* Write the whole dataset to path (fsynced). 0 or -1 with errno. */
static int aofWriteBase(const char *path, int rdb) {
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    rio r;
    rioInitWithFile(&r, fp);
    if (cfg.aof_rewrite_incremental_fsync) rioSetAutoSync(&r, AOF_AUTOSYNC_BYTES);
    int ret = rdb ? rdbSaveRio(&r, NULL, 1) : aofWriteCommandsBase(&r);
    if (ret == 0 && fflush(fp) != 0) ret = -1;
    if (ret == 0 && fsync(fileno(fp)) == -1) ret = -1;
    int e = errno;
    if (fclose(fp) != 0 && ret == 0) ret = -1, e = errno;
    if (ret == -1) unlink(path);
    errno = e;
    return ret;
}

/* ---- start-up ---- */

static void aofAttach(void) {
    if (!aof.attached) {
        streamCursorAttachFor(&aof.cur, STREAM_READER_AOF);
        aof.attached = 1;
    }
    aof.durable_off = streamCursorOffset(&aof.cur);
}

static void aofDetach(void) {
    if (aof.attached) streamCursorDetach(&aof.cur);
    aof.attached = 0;
}

static void aofFatal(const char *what, const char *err) {
    serverLog(LL_WARNING, "Fatal error loading the append only file: %s%s%s", what, err ? ": " : "",
              err ? err : "");
    exit(1);
}

/* Load one file of the AOF; returns its AOF_LOAD_* result or exits. */
static int aofLoadLogged(const char *name, int is_last, int must_exist) {
    sds path = aofPath(aofDir(), name);
    long long cmds = 0;
    char *err = NULL;
    long long start = ustime();
    int ret = aofLoadFile(path, name, is_last, &cmds, &err);
    sdsfree(path);
    if (ret == AOF_LOAD_FAILED) {
        /* The reason is the last line logged: operators (and Redis' tests)
         * read the tail of the log for why the server stopped. */
        serverLog(LL_WARNING, "Fatal error loading the append only file %s. Exiting.", name);
        serverLog(LL_WARNING, "%s", err);
        sdsfree((sds)err);
        exit(1);
    }
    if (ret == AOF_LOAD_NOT_EXIST) {
        if (must_exist) {
            serverLog(LL_WARNING, "The append log file %s listed in the manifest doesn't exist: %s. Exiting.", name,
                      strerror(ENOENT));
            exit(1);
        }
        return ret;
    }
    serverLog(LL_NOTICE, "DB loaded from %s file %s: %.3f seconds (%lld commands or keys)",
              ret == AOF_LOAD_EMPTY ? "empty" : "append only", name,
              (double)(ustime() - start) / 1000000, cmds);
    return ret;
}

/* A Redis 6 appendonly.aof in `dir` and no manifest: load it, then make it
 * the base of a new manifest, moved into the directory (as Redis 7.0's
 * upgrade does). */
static int aofLoadLegacy(void) {
    struct stat st;
    if (stat(cfg.appendfilename, &st) == -1) return 0;
    serverLog(LL_NOTICE, "Loading the single-file AOF %s (no manifest found)", cfg.appendfilename);
    long long cmds = 0;
    char *err = NULL;
    int ret = aofLoadFile(cfg.appendfilename, cfg.appendfilename, 1, &cmds, &err);
    if (ret == AOF_LOAD_FAILED) aofFatal(cfg.appendfilename, err);
    if (aofMkdir() == -1) exit(1);
    sds dst = aofPath(aofDir(), cfg.appendfilename);
    if (rename(cfg.appendfilename, dst) == -1) {
        serverLog(LL_WARNING, "Error moving %s into %s: %s", cfg.appendfilename, aofDir(), strerror(errno));
        exit(1);
    }
    sdsfree(dst);
    aofManifestSetBase(aof.am, cfg.appendfilename, 1);
    serverLog(LL_NOTICE, "Successfully migrated an old-style AOF into the AOF directory (%lld commands)", cmds);
    return 1;
}

/* While appendonly waits for its first rewrite (AOF_WAIT_REWRITE) the
 * writes go to temp-<appendfilename>.incr, as in Redis 7.0: the rewrite
 * that succeeds renames it to the next incremental file in the same
 * manifest swap; one that fails removes it, and the next attempt's
 * snapshot holds what it had. Caller frees. */
static sds aofTempIncrName(void) {
    return sdscatprintf(sdsempty(), "temp-%s.incr", cfg.appendfilename);
}

static void aofTempIncrDrop(void) {
    if (!aof.temp_incr) return;
    aof.temp_incr = 0;
    sds name = aofTempIncrName();
    sds p = aofPath(aofDir(), name);
    /* (Redis' words: its tests count them) */
    serverLog(LL_NOTICE, "Removing the temp incr aof file %s in the background", name);
    unlink(p); /* the open fd keeps taking writes until the next attempt reopens */
    sdsfree(p);
    sdsfree(name);
}

/* A rewrite child that outlived a crashed parent leaves its temp file; a
 * crash while appendonly waited for its first rewrite, the temp incr. */
static void aofRemoveStaleTemps(void) {
    DIR *d = opendir(aofDir());
    if (!d) return;
    sds tincr = aofTempIncrName();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "temp-rewriteaof-bg-", 19) != 0 && strcmp(e->d_name, tincr) != 0)
            continue;
        sds p = aofPath(aofDir(), e->d_name);
        if (unlink(p) == 0) serverLog(LL_NOTICE, "Removed the stale rewrite file %s", e->d_name);
        sdsfree(p);
    }
    closedir(d);
    sdsfree(tincr);
}

/* A base or incremental file of ours in the directory (manifest lost?). */
static sds aofFindOrphan(void) {
    DIR *d = opendir(aofDir());
    if (!d) return NULL;
    struct dirent *e;
    sds found = NULL;
    size_t plen = strlen(cfg.appendfilename);
    while (!found && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t l = strlen(n);
        if (l <= plen + 9 || strncmp(n, cfg.appendfilename, plen) != 0 || n[plen] != '.') continue;
        if (!strcmp(n + l - 9, ".base.rdb") || !strcmp(n + l - 9, ".base.aof") ||
            !strcmp(n + l - 9, ".incr.aof"))
            found = sdsnew(n);
    }
    closedir(d);
    return found;
}

/* A crash in the middle of moving a Redis 6 single file into the directory
 * (after the manifest naming it was written, before the rename) leaves the
 * base in `dir`: finish the move, as Redis does, instead of refusing. */
static void aofFinishUpgrade(const aofManifest *am) {
    if (!am->base || strcmp(am->base->name, cfg.appendfilename) != 0) return;
    sds dst = aofPath(aofDir(), am->base->name);
    struct stat st;
    if (stat(dst, &st) == -1 && stat(cfg.appendfilename, &st) == 0) {
        if (rename(cfg.appendfilename, dst) == -1) {
            serverLog(LL_WARNING, "Error moving %s into %s: %s", cfg.appendfilename, aofDir(), strerror(errno));
            exit(1);
        }
        serverLog(LL_NOTICE, "Successfully migrated an old-style AOF into the AOF directory (an interrupted upgrade)");
    }
    sdsfree(dst);
}

void aofStartupLoad(void) {
    aofInit();
    aof.state = AOF_ON;
    if (aofMkdir() == -1) exit(1);
    sds mname = aofManifestFileName(cfg.appendfilename);
    sds mpath = aofPath(aofDir(), mname);
    struct stat st;
    long long start = ustime();
    server.loading = 1;
    aofLoadServeClients(1);
    if (stat(mpath, &st) == 0) {
        sds err = NULL;
        int line = 0;
        aofManifest *am = aofManifestLoad(mpath, &err, &line);
        if (!am) {
            serverLog(LL_WARNING, "*** FATAL AOF MANIFEST FILE ERROR *** %s%s%d: %s", mpath,
                      line ? " at line " : "", line, err);
            exit(1);
        }
        aofManifestFree(aof.am);
        aof.am = am;
        aofFinishUpgrade(am);
        int total = (am->base ? 1 : 0) + am->nincr, k = 0;
        if (am->base) aofLoadLogged(am->base->name, ++k == total, 1);
        for (int j = 0; j < am->nincr; j++) aofLoadLogged(am->incr[j]->name, ++k == total, 1);
    } else {
        /* Redis would start empty here and write a new base over the old
         * one; data without its manifest is more likely a mistake. */
        sds orphan = aofFindOrphan();
        if (orphan) {
            serverLog(LL_WARNING, "The AOF directory %s holds %s but no manifest %s: refusing to start "
                                  "(restore the manifest, or move the files away to start empty)",
                      aofDir(), orphan, mname);
            exit(1);
        }
        aofLoadLegacy();
    }
    aofLoadServeClients(0);
    server.loading = 0;
    server.dirty = 0;
    serverLog(LL_NOTICE, "DB loaded from append only file: %.3f seconds", (double)(ustime() - start) / 1000000);
    sdsfree(mname);
    sdsfree(mpath);

    /* An empty start gets a base right away, as in Redis 7.0. */
    if (!aof.am->base && aof.am->nincr == 0) {
        const char *name = aofManifestNewBase(aof.am, cfg.appendfilename, cfg.aof_use_rdb_preamble);
        sds p = aofPath(aofDir(), name);
        if (aofWriteBase(p, cfg.aof_use_rdb_preamble) == -1) {
            serverLog(LL_WARNING, "Can't write the AOF base file %s: %s", p, strerror(errno));
            exit(1);
        }
        sdsfree(p);
    }
    int fresh = aof.am->nincr == 0;
    if (fresh) aofManifestNewIncr(aof.am, cfg.appendfilename);
    aof.fd = aofOpenIncr(aof.am->incr[aof.am->nincr - 1]->name, fresh);
    if (aof.fd == -1) exit(1);
    if (fresh && aofStampNewFile() == -1) exit(1);
    sds err = NULL;
    if (aofManifestPersist(aof.am, aofDir(), cfg.appendfilename, &err) == -1) {
        serverLog(LL_WARNING, "%s", err);
        exit(1);
    }
    aofDeleteHistory(aof.am);
    aofRemoveStaleTemps();
    aof.incr_size = manifestFileSize(aof.am->incr[aof.am->nincr - 1]->name);
    aof.pad_end = aof.incr_size; /* (the load cut any pad tail off) */
    aof.current_size = aof.base_size = manifestTotalSize(aof.am);
    aofAttach();
    aofUpdateHold();
}

/* ---- writing: no / everysec ---- */

void aofWriteError(int err) {
    if (aof.last_write_status == C_OK || server.unixtime - aof.last_write_error_log > 30) {
        serverLog(LL_WARNING, "Error writing to the AOF file: %s", strerror(err));
        aof.last_write_error_log = server.unixtime;
    }
    aof.last_write_status = C_ERR;
    aof.last_write_errno = err;
}

void aofWriteOk(void) {
    if (aof.last_write_status == C_ERR) {
        serverLog(LL_WARNING, "AOF write error looks solved, Redis can write again.");
        aof.last_write_status = C_OK;
    }
}

/* aof-timestamp-enabled: Redis' "#TS:<unix seconds>\r\n" annotation,
 * written into the file (never into the stream) before the next write
 * when the second changed since the last one, and only where the file
 * ends at a command boundary. Its length in buf, 0 for none. */
size_t aofTimestamp(char *buf, size_t size) {
    if (!cfg.aof_timestamp_enabled || !aof.boundary || server.unixtime <= aof.last_ts) return 0;
    return (size_t)snprintf(buf, size, "#TS:%lld\r\n", (long long)server.unixtime);
}

/* aof-timestamp-enabled: a new incremental file starts with a #TS: line
 * of its own, whatever second the last annotation was written in, so the
 * time of its first write is known from the file alone (point-in-time
 * truncation works file by file; Redis starts a rewritten base the same
 * way). 0 or -1 (the write failed). */
static int aofStampNewFile(void) {
    if (!cfg.aof_timestamp_enabled) return 0;
    aof.last_ts = 0;
    char ts[32];
    size_t tl = aofTimestamp(ts, sizeof(ts));
    if (tl && aofWriteExtra(ts, tl) == -1) return -1;
    aof.last_ts = server.unixtime;
    return 0;
}

void aofPadDrop(void) {
    if (aof.fd == -1 || aof.inflight || aof.pad_end <= aof.incr_size) return;
    /* (if this fails the pad stays: annotation lines, harmless; retried) */
    if (ftruncate(aof.fd, (off_t)aof.incr_size) == 0) aof.pad_end = aof.incr_size;
}

/* Write the unread stream bytes on this thread; returns 0 or -1. */
static int aofWriteSync(void) {
    struct iovec iov[AOF_IOV_MAX];
    int n;
    char ts[32];
    aofPadDrop();
    size_t tl = streamCursorPeek(&aof.cur, iov, 1) > 0 ? aofTimestamp(ts, sizeof(ts)) : 0;
    if (tl) {
        ssize_t w;
        do {
            w = pwrite(aof.fd, ts, tl, (off_t)aof.incr_size);
        } while (w < 0 && errno == EINTR);
        if (w != (ssize_t)tl) {
            int e = w < 0 ? errno : ENOSPC;
            /* half an annotation would swallow the next command */
            if (w > 0 && ftruncate(aof.fd, (off_t)aof.incr_size) == -1) aof.boundary = 0;
            aofWriteError(e);
            return -1;
        }
        aof.incr_size += (long long)tl;
        aof.current_size += (long long)tl;
        if (aof.pad_end < aof.incr_size) aof.pad_end = aof.incr_size;
        aof.last_ts = server.unixtime;
    }
    while ((n = streamCursorPeek(&aof.cur, iov, AOF_IOV_MAX)) > 0) {
        ssize_t w = pwritev(aof.fd, iov, n, (off_t)aof.incr_size);
        if (w < 0) {
            if (errno == EINTR) continue;
            aofWriteError(errno);
            return -1;
        }
        /* A short write leaves a partial command in the file; the rest
         * follows on the next try, so the file stays a valid prefix. */
        if (w > 0) aof.boundary = 0;
        streamCursorAdvance(&aof.cur, (size_t)w);
        aof.incr_size += w;
        aof.current_size += w;
        if (aof.pad_end < aof.incr_size) aof.pad_end = aof.incr_size;
        size_t total = 0;
        for (int j = 0; j < n; j++) total += iov[j].iov_len;
        if ((size_t)w < total) {
            aofWriteError(ENOSPC);
            return -1;
        }
    }
    /* Everything the stream had: the stream ends between commands. */
    aof.boundary = 1;
    aofWriteOk();
    return 0;
}

static void aofFlushRelaxed(void) {
    struct iovec iov[1];
    int have = streamCursorPeek(&aof.cur, iov, 1) > 0;
    if (have && aof.last_write_status == C_ERR && server.unixtime == aof.last_retry) return;
    if (have && cfg.appendfsync == APPENDFSYNC_EVERYSEC && bioPending(BIO_AOF_FSYNC)) {
        /* The disk is busy with the last fsync: let the write wait (not
         * more than 2 s), as a write(2) now could block the loop. */
        if (aof.postponed_since == 0) {
            aof.postponed_since = server.unixtime_ms;
            return;
        }
        if (server.unixtime_ms - aof.postponed_since < 2000) return;
        aof.delayed_fsync++;
        serverLog(LL_NOTICE, "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the "
                             "AOF buffer without waiting for fsync to complete, this may slow down Redis.");
    }
    aof.postponed_since = 0;
    if (have) {
        aof.last_retry = server.unixtime;
        if (aofWriteSync() == -1) return;
    }
    /* A failed fsync is retried once a second even with nothing new to
     * write: writes are refused until one succeeds, so nothing else would
     * ever submit it. */
    int fsync_failed = __atomic_load_n(&bio_fsync_status, __ATOMIC_ACQUIRE) == C_ERR;
    if (cfg.appendfsync == APPENDFSYNC_EVERYSEC && server.unixtime > aof.last_fsync &&
        (aof.fsynced_size != aof.incr_size || fsync_failed) && !bioPending(BIO_AOF_FSYNC) &&
        !(cfg.aof_no_fsync_on_rewrite && childActiveType() != CHILD_TYPE_NONE)) {
        /* (after a short write this offset is mid-command: WAITAOF, which
         * compares it with command ends, then counts no more commands) */
        aofSubmitFdJob(aof.fd, 0, streamCursorOffset(&aof.cur));
        aof.last_fsync = server.unixtime;
        aof.fsynced_size = aof.incr_size;
    }
}

/* An everysec fsync finished: the prefix it covered is durable. */
void aofNoteBioFsync(void) {
    long long off = __atomic_load_n(&bio_fsynced_off, __ATOMIC_ACQUIRE);
    if (off > aof.durable_off && aof.attached && off <= streamCursorOffset(&aof.cur))
        aof.durable_off = off;
}

/* Bytes that are in the file but not in the stream (a replica's SELECT
 * header, its local writes): written on this thread, after everything the
 * stream holds so far. 0 or -1 (the write failed, the file is as before). */
static int aofWriteExtra(const char *p, size_t len) {
    size_t done = 0;
    aofPadDrop();
    while (done < len) {
        ssize_t w = pwrite(aof.fd, p + done, len - done, (off_t)(aof.incr_size + (long long)done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (done && ftruncate(aof.fd, (off_t)aof.incr_size) == -1) aof.boundary = 0;
            aofWriteError(w < 0 ? errno : ENOSPC);
            return -1;
        }
        done += (size_t)w;
    }
    aof.incr_size += (long long)len;
    aof.current_size += (long long)len;
    if (aof.pad_end < aof.incr_size) aof.pad_end = aof.incr_size;
    return 0;
}

/* A writable replica's local write (propagate.c): it is in no stream, so
 * it cannot join a group commit. The stream bytes before it are written
 * first, then it, on this thread, and under always fsynced before the
 * reply goes out, as Redis does on every write. Rare (replicas are
 * read-only by default), so the blocking is acceptable. Lost, with a
 * logged error, when the disk refuses it: writes are refused after. */
void aofAppendLocal(const char *p, size_t len) {
    if (aof.state == AOF_OFF || aof.fd == -1 || !aof.attached) return;
    aofWaitInflight();
    if (aofWriteSync() == -1 || aofWriteExtra(p, len) == -1) {
        serverLog(LL_WARNING, "A local write of this replica could not be appended to the AOF");
        return;
    }
    if (cfg.appendfsync == APPENDFSYNC_ALWAYS) {
        if (aofDatasync(aof.fd) == -1) {
            aofWriteError(errno);
            return;
        }
        aof.durable_off = streamCursorOffset(&aof.cur);
    }
}

/* Everything unread on disk and fsynced, on this thread (rewrite start,
 * policy changes, shutdown). 0 or -1. */
static int aofFlushAll(void) {
    if (aof.fd == -1 || !aof.attached) return 0;
    aofWaitInflight();
    int ret = aofWriteSync();
    bioDrain(BIO_AOF_FSYNC);
    if (ret == 0 && aofDatasync(aof.fd) == -1) {
        aofWriteError(errno);
        ret = -1;
    }
    if (ret == 0) aof.durable_off = streamCursorOffset(&aof.cur);
    aofReleaseHeld(0);
    return ret;
}

/* ---- the loop hooks ---- */

void aofBeforeSleep(void) {
    if (aof.resume) aofResumeClients();
    if (aof.state == AOF_OFF || aof.fd == -1 || !aof.attached) return;
    if (debug_flush_sleep_us && streamCursorOffset(&aof.cur) < streamAofOffset())
        usleep((useconds_t)debug_flush_sleep_us);
    if (cfg.appendfsync == APPENDFSYNC_ALWAYS) {
        aofAlwaysKick();
        if (server.el) elSpinBeforeSleep(server.el, aofAlwaysLoopSpinUs());
    } else {
        aofFlushRelaxed();
    }
}

/* In replication offsets, as WAITAOF compares it with c->woff: the AOF's
 * own offsets run ahead of them by the bytes only it got from scripts
 * (redis.set_repl), less those only replicas got. */
long long aofFsyncedOffset(void) {
    if (aof.state != AOF_ON || !aof.attached) return -1;
    return aof.durable_off - (streamAofOffset() - streamOffset());
}

const char *aofWritesDenied(void) {
    static char msg[256];
    if (aof.state == AOF_OFF) return NULL;
    int e = 0;
    if (aof.last_write_status == C_ERR) e = aof.last_write_errno;
    else if (__atomic_load_n(&bio_fsync_status, __ATOMIC_ACQUIRE) == C_ERR)
        e = __atomic_load_n(&bio_fsync_errno, __ATOMIC_RELAXED);
    else return NULL;
    snprintf(msg, sizeof(msg), "MISCONF Errors writing to the AOF file: %s", strerror(e));
    return msg;
}

/* ---- rewrite ---- */

static void aofRewriteFailed(void);

static void aofChildCloseListeners(void) {
    for (int j = 0; j < server.listen_count; j++) close(server.listen_fds[j]);
    if (server.unix_fd != -1) close(server.unix_fd);
}

static sds aofRewriteTempPath(pid_t pid) {
    sds name = sdscatprintf(sdsempty(), "temp-rewriteaof-bg-%d.aof", (int)pid);
    sds p = aofPath(aofDir(), name);
    sdsfree(name);
    return p;
}

/* Make sure aof.am reflects the directory when the AOF is off. */
static void aofLoadManifestIfOff(void) {
    if (aof.state != AOF_OFF) return;
    aofManifestFree(aof.am);
    aof.am = NULL;
    sds mname = aofManifestFileName(cfg.appendfilename);
    sds mpath = aofPath(aofDir(), mname);
    struct stat st;
    if (stat(mpath, &st) == 0) {
        sds err = NULL;
        int line;
        aof.am = aofManifestLoad(mpath, &err, &line);
        if (!aof.am) {
            serverLog(LL_WARNING, "Ignoring the unreadable AOF manifest %s: %s", mpath, err);
            sdsfree(err);
        }
    }
    if (!aof.am) aof.am = aofManifestCreate();
    sdsfree(mname);
    sdsfree(mpath);
}

/* Switch writes to a new incremental file (rewrite start). */
static int aofOpenNewIncr(void) {
    if (aof.fd == -1 && aof.attached) {
        /* Turning on while another child ran: what the stream kept since
         * is in the snapshot about to be forked. */
        struct iovec iov[AOF_IOV_MAX];
        int n;
        while ((n = streamCursorPeek(&aof.cur, iov, AOF_IOV_MAX)) > 0) {
            size_t total = 0;
            for (int k = 0; k < n; k++) total += iov[k].iov_len;
            streamCursorAdvance(&aof.cur, total);
        }
        aof.durable_off = streamCursorOffset(&aof.cur);
    }
    if (aofFlushAll() == -1 && cfg.appendfsync == APPENDFSYNC_ALWAYS) return -1;
    aofManifest *am = NULL;
    sds tname = NULL;
    const char *name;
    if (aof.state == AOF_WAIT_REWRITE) {
        name = tname = aofTempIncrName();
    } else {
        am = aofManifestDup(aof.am);
        name = aofManifestNewIncr(am, cfg.appendfilename);
    }
    int fd = aofOpenIncr(name, 1);
    if (fd == -1) {
        if (am) aofManifestFree(am);
        sdsfree(tname);
        return -1;
    }
    if (aof.state == AOF_ON) {
        sds err = NULL;
        if (aofManifestPersist(am, aofDir(), cfg.appendfilename, &err) == -1) {
            serverLog(LL_WARNING, "%s", err);
            sdsfree(err);
            sds p = aofPath(aofDir(), name);
            unlink(p);
            sdsfree(p);
            close(fd);
            aofManifestFree(am);
            return -1;
        }
    }
    if (am) {
        aofManifestFree(aof.am);
        aof.am = am;
    }
    aof.temp_incr = tname != NULL;
    sdsfree(tname);
    if (aof.fd != -1) aofSubmitFdJob(aof.fd, 1, -1); /* (its pad went with aofFlushAll) */
    aof.fd = fd;
    aof.incr_size = aof.pad_end = 0;
    aof.fsynced_size = -1;
    aof.boundary = 1;
    /* The new file must start with a SELECT of its own: the next command
     * we encode emits one, but a replica's stream is its primary's bytes,
     * which may go on in a database selected long before. */
    propagateResetSelect();
    if (aofStampNewFile() == -1) return -1;
    if (streamRawDb() >= 0) {
        char num[16], cmd[64];
        int nl = snprintf(num, sizeof(num), "%d", streamRawDb());
        int n = snprintf(cmd, sizeof(cmd), "*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n", nl, num);
        if (aofWriteExtra(cmd, (size_t)n) == -1) return -1;
    }
    return 0;
}

static int aofRewriteStart(void) {
    aofInit();
    if (childActiveType() != CHILD_TYPE_NONE) return -1;
    if (aofMkdir() == -1) return -1;
    aof.rewrite_last_try = server.unixtime;
    aofLoadManifestIfOff();
    if (aof.state != AOF_OFF && aofOpenNewIncr() == -1) {
        aofRewriteFailed();
        return -1;
    }
    aof.rewrites++; /* (started ones, as Redis counts aof_rewrites) */
    aof.rewrite_rdb = cfg.aof_use_rdb_preamble;
    pid_t pid = childFork(CHILD_TYPE_AOF);
    if (pid == 0) {
        aofChildCloseListeners();
        sds tmp = aofRewriteTempPath(getpid());
        int ret = aofWriteBase(tmp, aof.rewrite_rdb);
        if (ret == 0) serverLog(LL_NOTICE, "Successfully created the temporary AOF base file %s", tmp);
        else serverLog(LL_WARNING, "Error writing the AOF base file %s: %s", tmp, strerror(errno));
        childExit(ret == 0 ? 0 : 1);
    }
    if (pid == -1) {
        serverLog(LL_WARNING, "Can't rewrite append only file in background: fork: %s", strerror(errno));
        aofTempIncrDrop();
        aofRewriteFailed();
        return -1;
    }
    serverLog(LL_NOTICE, "Background append only file rewriting started by pid %d", (int)pid);
    aof.rewrite_scheduled = 0;
    aof.rewrite_start = server.unixtime;
    return 0;
}

static int aofRewriteRetryDelay(void) {
    /* Turning appendonly on: at once, as Redis does before its third
     * failure in a row (the AOF is not on until one succeeds). */
    if (aof.state == AOF_WAIT_REWRITE && aof.rewrite_failures < 3) return 0;
    int shift = aof.rewrite_failures > 1 ? (int)(aof.rewrite_failures - 1) : 0;
    if (shift > 10) shift = 10;
    int d = AOF_REWRITE_RETRY_DELAY << shift;
    return d < AOF_REWRITE_RETRY_MAX ? d : AOF_REWRITE_RETRY_MAX;
}

/* May the cron start an automatic or scheduled rewrite now? */
static int aofRewriteMayRetry(void) {
    return aof.rewrite_failures == 0 ||
           server.unixtime - aof.rewrite_last_try >= aofRewriteRetryDelay();
}

static void aofRewriteFailed(void) {
    aof.last_bgrewrite_status = C_ERR;
    aof.rewrite_failures++;
    /* appendonly was turned on at run time: try again until there is a base. */
    if (aof.state == AOF_WAIT_REWRITE) aof.rewrite_scheduled = 1;
    serverLog(LL_WARNING,
              "AOF rewrite failed %lld time(s) in a row: next automatic attempt in %d s",
              aof.rewrite_failures, aofRewriteRetryDelay());
}

void aofRewriteDone(pid_t pid, int exitcode, int bysignal) {
    sds tmp = aofRewriteTempPath(pid);
    aof.rewrite_last_time = server.unixtime - aof.rewrite_start;
    aof.rewrite_start = -1;
    if (bysignal || exitcode != 0) {
        serverLog(LL_WARNING, bysignal ? "Background AOF rewrite terminated by signal %d"
                                       : "Background AOF rewrite failed (exit code %d)",
                  bysignal ? bysignal : exitcode);
        unlink(tmp);
        sdsfree(tmp);
        aofTempIncrDrop();
        if (bysignal != SIGUSR1) aofRewriteFailed();
        else if (aof.state == AOF_WAIT_REWRITE) aof.rewrite_scheduled = 1;
        return;
    }
    aofManifest *am = aofManifestDup(aof.am);
    const char *base = aofManifestNewBase(am, cfg.appendfilename, aof.rewrite_rdb);
    sds incr_tmp = NULL, incr_dst = NULL;
    if (aof.temp_incr) {
        sds tname = aofTempIncrName();
        incr_tmp = aofPath(aofDir(), tname);
        incr_dst = aofPath(aofDir(), aofManifestNewIncr(am, cfg.appendfilename));
        sdsfree(tname);
    }
    aofManifestIncrToHistory(am, aof.state == AOF_OFF ? 0 : 1);
    sds dst = aofPath(aofDir(), base);
    sds err = NULL;
    if (rename(tmp, dst) == -1) {
        serverLog(LL_WARNING, "Error trying to rename the temporary AOF base file %s into %s: %s", tmp,
                  dst, strerror(errno));
        unlink(tmp);
        goto fail;
    }
    if (incr_tmp && rename(incr_tmp, incr_dst) == -1) {
        serverLog(LL_WARNING, "Error trying to rename the temporary AOF incr file %s into %s: %s",
                  incr_tmp, incr_dst, strerror(errno));
        unlink(dst);
        goto fail;
    }
    /* (the manifest's directory fsync below covers both renames) */
    if (aofManifestPersist(am, aofDir(), cfg.appendfilename, &err) == -1) {
        serverLog(LL_WARNING, "%s", err);
        sdsfree(err);
        unlink(dst);
        if (incr_tmp && rename(incr_dst, incr_tmp) == -1) { /* then fail drops what is there */
        }
        goto fail;
    }
    if (incr_tmp) {
        serverLog(LL_NOTICE, "Successfully renamed the temporary AOF incr file into %s", incr_dst);
        aof.temp_incr = 0;
    }
    aofManifestFree(aof.am);
    aof.am = am;
    if (aof.state == AOF_WAIT_REWRITE) {
        aof.state = AOF_ON;
        serverLog(LL_NOTICE, "AOF enabled: the first rewrite is done");
        /* what was written since the fork is in the new incr file */
        aofFlushAll();
        aofUpdateHold();
    }
    aofDeleteHistory(aof.am);
    aof.current_size = aof.base_size = manifestFileSize(base) + aof.incr_size;
    aof.last_bgrewrite_status = C_OK;
    aof.rewrite_failures = 0;
    serverLog(LL_NOTICE, "Background AOF rewrite finished successfully");
    sdsfree(dst);
    sdsfree(tmp);
    sdsfree(incr_tmp);
    sdsfree(incr_dst);
    return;
fail:
    aofManifestFree(am);
    sdsfree(dst);
    sdsfree(tmp);
    sdsfree(incr_tmp);
    sdsfree(incr_dst);
    aofTempIncrDrop();
    aofRewriteFailed();
}

static void aofKillRewrite(void) {
    if (childActiveType() != CHILD_TYPE_AOF) return;
    pid_t pid = childPid();
    serverLog(LL_NOTICE, "Killing running AOF rewrite child: %ld", (long)pid);
    childKill();
    sds tmp = aofRewriteTempPath(pid);
    unlink(tmp);
    sdsfree(tmp);
    aof.rewrite_start = -1;
}

void aofCron(void) {
    aofInit();
    if (aof.state == AOF_OFF) {
        /* BGREWRITEAOF with appendonly no, scheduled behind a BGSAVE */
        if (aof.rewrite_scheduled && childActiveType() == CHILD_TYPE_NONE && aofRewriteMayRetry())
            aofRewriteStart();
        return;
    }
    /* Retry a failed write once a second; under everysec this also runs
     * the fsync when the loop is idle. */
    aofBeforeSleep();
    aofAlwaysCron();
    if (childActiveType() != CHILD_TYPE_NONE) return;
    if (aof.rewrite_scheduled && aofRewriteMayRetry()) {
        aofRewriteStart();
        return;
    }
    if (aof.state == AOF_ON && cfg.aof_rewrite_perc &&
        aof.current_size > cfg.aof_rewrite_min_size) {
        long long base = aof.base_size ? aof.base_size : 1;
        long long growth = aof.current_size * 100 / base - 100;
        if (growth >= cfg.aof_rewrite_perc && !aofRewriteMayRetry()) {
            /* Once per failure: a rewrite is due but held back (Redis'
             * words; its tests and operators look for them). */
            static long long logged_failures;
            if (aof.rewrite_failures >= 3 && logged_failures != aof.rewrite_failures) {
                logged_failures = aof.rewrite_failures;
                serverLog(
                    LL_WARNING,
                    "Background AOF rewrite has repeatedly failed and triggered the limit, will "
                    "retry in %d seconds",
                    (int)(aof.rewrite_last_try + aofRewriteRetryDelay() - server.unixtime));
            }
        } else if (growth >= cfg.aof_rewrite_perc) {
            serverLog(LL_NOTICE, "Starting automatic rewriting of AOF on %lld%% growth", growth);
            aofRewriteStart();
        }
    }
}

void bgrewriteaofCommand(client *c) {
    if (childActiveType() == CHILD_TYPE_AOF) {
        replyError(c, "ERR Background append only file rewriting already in progress");
    } else if (childActiveType() != CHILD_TYPE_NONE || server.in_exec) {
        aof.rewrite_scheduled = 1;
        replyStatusC(c, "Background append only file rewriting scheduled");
    } else if (aofRewriteStart() == 0) {
        replyStatusC(c, "Background append only file rewriting started");
    } else {
        replyError(c, "ERR Can't execute an AOF background rewriting. Please check the server logs "
                      "for more information.");
    }
}

/* A replica loaded its primary's snapshot: the files hold the old dataset
 * and the stream goes on from the new one, so a new base must be written
 * from the keyspace as it is now (a rewrite of the old data is useless). */
void aofDatasetReplaced(void) {
    aofInit();
    if (aof.state == AOF_OFF) return;
    if (childActiveType() == CHILD_TYPE_AOF) aofKillRewrite();
    serverLog(LL_NOTICE, "The dataset was replaced by a full sync: rewriting the AOF");
    if (childActiveType() != CHILD_TYPE_NONE || aofRewriteStart() != 0) aof.rewrite_scheduled = 1;
}

/* ---- turning it on and off (CONFIG SET appendonly / appendfsync) ---- */

static void aofStop(void) {
    serverLog(LL_NOTICE, "Killing running AOF rewrite child / closing the AOF");
    aofFlushAll();
    aofKillRewrite();
    aofTempIncrDrop();
    if (aof.fd != -1) close(aof.fd);
    aof.fd = -1;
    aofDetach();
    aof.state = AOF_OFF;
    aof.rewrite_scheduled = 0;
    aofUpdateHold();
    aofReleaseHeld(1);
}

static int aofStart(void) {
    aofLoadManifestIfOff();
    if (aofMkdir() == -1) return -1;
    aof.state = AOF_WAIT_REWRITE;
    aofAttach();
    aof.last_write_status = C_OK;
    if (childActiveType() != CHILD_TYPE_NONE) {
        /* The new incr file opens when the scheduled rewrite starts; until
         * then the stream keeps the bytes. */
        aof.rewrite_scheduled = 1;
    } else if (aofRewriteStart() == -1) {
        aofDetach();
        aof.state = AOF_OFF;
        aof.rewrite_scheduled = 0;
        return -1;
    }
    aofUpdateHold();
    return 0;
}

static int applyAppendonly(const char **err) {
    if (server.loading) {
        *err = "Can't turn the AOF on or off while the dataset is loading";
        return 0;
    }
    if (cfg.appendonly && aof.state == AOF_OFF) {
        if (aofStart() == -1) {
            *err = "Unable to turn on AOF. Check server logs.";
            return 0;
        }
    } else if (!cfg.appendonly && aof.state != AOF_OFF) {
        aofStop();
    }
    return 1;
}

/* aof-disable-auto-gc no: the history files it kept go now, as in Redis. */
static int applyAofAutoGc(const char **err) {
    (void)err;
    if (aof.state == AOF_ON) aofDeleteHistory(aof.am);
    return 1;
}

static int applyAppendfsync(const char **err) {
    if (server.loading) {
        *err = "Can't change appendfsync while the dataset is loading";
        return 0;
    }
    if (aof.state != AOF_OFF) {
        /* Settle the writer and whoever waits for it before the rules change. */
        aofWaitInflight();
        if (cfg.appendfsync == APPENDFSYNC_ALWAYS) aofFlushAll();
    }
    aofUpdateHold();
    if (!aof_hold_active) aofReleaseHeld(1);
    return 1;
}

/* ---- init, shutdown, INFO ---- */

void aofInit(void) {
    if (aof.inited) return;
    aof.inited = 1;
    aof.fd = -1;
    aof.boundary = 1;
    aof.last_write_status = C_OK;
    aof.last_bgrewrite_status = C_OK;
    aof.rewrite_start = -1;
    aof.rewrite_last_time = -1;
    aof.am = aofManifestCreate();
    aofAlwaysInit();
    const char *delay = getenv("CAIRN_DEBUG_AOF_FSYNC_DELAY_MS");
    if (delay) debug_fsync_delay_ms = atoi(delay);
    cfgHooks.apply_appendonly = applyAppendonly;
    cfgHooks.apply_appendfsync = applyAppendfsync;
    cfgHooks.apply_aof_auto_gc = applyAofAutoGc;
    /* A file size limit shows up as EFBIG on write, not as a signal. */
    signal(SIGXFSZ, SIG_IGN);
}

int aofShutdown(int flags) {
    aofInit();
    if (childActiveType() == CHILD_TYPE_AOF && aof.state == AOF_WAIT_REWRITE) {
        /* The dataset is nowhere on disk yet (as Redis: refuse to exit). */
        if (!(flags & SHUTDOWN_FORCE)) {
            serverLog(LL_WARNING, "Writing initial AOF, can't exit.");
            return -1;
        }
        serverLog(LL_WARNING, "Writing initial AOF. Exit anyway.");
    }
    if (childActiveType() == CHILD_TYPE_AOF) {
        serverLog(LL_WARNING, "There is a child rewriting the AOF. Killing it!");
        aofKillRewrite();
    }
    if (aof.state == AOF_OFF) return 0;
    serverLog(LL_NOTICE, "Calling fsync() on the AOF file.");
    aofFlushAll();
    return 0;
}

/* DEBUG LOADAOF: the dataset is replaced by what the AOF files hold, as
 * Redis does it: pending writes go to disk first, then every file of the
 * manifest is loaded into the emptied keyspace, other clients getting
 * -LOADING meanwhile (the caller is CLIENT_EXECUTING_COMMAND, so it is not
 * read again). A file that fails to load ends the process, as at start-up.
 *
 * Two cases refuse, with the dataset untouched (Redis 7.0 loads anyway and
 * loses data): the first rewrite of a just-enabled AOF is running (its
 * files do not hold the dataset, and the base being written would not
 * match what the load leaves in memory), and the flush failed (what was
 * acknowledged but not written would vanish). */
sds aofDebugLoad(void) {
    aofInit();
    if (aof.state == AOF_WAIT_REWRITE && childActiveType() == CHILD_TYPE_AOF)
        return sdsnew(
            "ERR DEBUG LOADAOF: the AOF is being turned on and its first rewrite is still "
            "running, the files do not hold the dataset yet");
    if (aof.state == AOF_ON && aofFlushAll() == -1)
        return sdscatprintf(sdsempty(),
                            "ERR DEBUG LOADAOF: flushing the AOF failed (%s), the dataset "
                            "was not reloaded",
                            strerror(aof.last_write_errno));
    aofLoadManifestIfOff();
    dbEmpty(-1, 0);
    for (int j = 0; j < cfg.dbnum; j++) signalFlushedDb(j);
    server.loading = 1;
    aofLoadServeClients(1);
    int total = (aof.am->base ? 1 : 0) + aof.am->nincr, k = 0;
    if (aof.am->base) aofLoadLogged(aof.am->base->name, ++k == total, 1);
    for (int j = 0; j < aof.am->nincr; j++) aofLoadLogged(aof.am->incr[j]->name, ++k == total, 1);
    aofLoadServeClients(0);
    server.loading = 0;
    server.dirty = 0;
    /* Writes go on at the file's end as it is now: the load may have cut
     * a tail, and bytes appended by hand were just loaded. */
    struct stat st;
    if (aof.fd != -1 && fstat(aof.fd, &st) == 0) {
        aof.current_size += (long long)st.st_size - aof.incr_size;
        aof.incr_size = aof.pad_end = (long long)st.st_size;
    }
    serverLog(LL_NOTICE, "Append Only File loaded by DEBUG LOADAOF");
    return NULL;
}

sds aofInfoFields(sds s) {
    aofInit();
    int rewriting = childActiveType() == CHILD_TYPE_AOF;
    s = sdscatprintf(s,
                     "aof_enabled:%d\r\n"
                     "aof_rewrite_in_progress:%d\r\n"
                     "aof_rewrite_scheduled:%d\r\n"
                     "aof_last_rewrite_time_sec:%lld\r\n"
                     "aof_current_rewrite_time_sec:%lld\r\n"
                     "aof_last_bgrewrite_status:%s\r\n"
                     "aof_rewrites:%lld\r\n"
                     "aof_rewrites_consecutive_failures:%lld\r\n"
                     "aof_last_write_status:%s\r\n"
                     "aof_last_cow_size:0\r\n"
                     "module_fork_in_progress:0\r\n"
                     "module_fork_last_cow_size:0\r\n"
                     "cairn_aof_fsyncs:%lld\r\n",
                     aof.state != AOF_OFF, rewriting, aof.rewrite_scheduled,
                     (long long)aof.rewrite_last_time,
                     rewriting && aof.rewrite_start != -1 ? (long long)(server.unixtime - aof.rewrite_start) : -1LL,
                     aof.last_bgrewrite_status == C_OK ? "ok" : "err", aof.rewrites,
                     aof.rewrite_failures, aofWritesDenied() ? "err" : "ok",
                     __atomic_load_n(&stat_fsyncs, __ATOMIC_RELAXED));
    if (aof.state != AOF_OFF) {
        long long pending = 0;
        if (aof.attached) pending = streamAofOffset() - streamCursorOffset(&aof.cur);
        s = sdscatprintf(s,
                         "aof_current_size:%lld\r\n"
                         "aof_base_size:%lld\r\n"
                         "aof_pending_rewrite:%d\r\n"
                         "aof_buffer_length:%lld\r\n"
                         "aof_pending_bio_fsync:%lu\r\n"
                         "aof_delayed_fsync:%lld\r\n",
                         aof.current_size, aof.base_size, aof.rewrite_scheduled, pending,
                         bioPending(BIO_AOF_FSYNC), aof.delayed_fsync);
    }
    return s;
}
