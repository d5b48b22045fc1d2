/* check: the server's RDB loader in check-only mode over a snapshot, which
 * proves it sound and counts its keys (per db, per type, with expires).
 *
 * From a file (verify, restore --to-server): backupScanFile/backupCountFile.
 * While it arrives (full): the received bytes are fed to a pipe whose other
 * end a thread reads with the real loader (rdbLoadRio on an fd rio), so the
 * check costs no time after the transfer:
 *
 *   checkStart --> pipe + thread (rdbLoadRio, the observer counting)
 *   checkFeed(bytes)* --> write(pipe)   (a loader that stopped early has
 *                                        closed its end: the rest is dropped)
 *   checkFinish --> close the write end, join, the counts or the error
 *
 * The loader's observer is process-wide: nothing else loads meanwhile. From
 * a file every key is decoded and freed by the loader; nothing is kept.
 * While a payload arrives the loader skims instead (rdb.h): the structure
 * of every value, the key counts and the RDB's CRC64, without decoding, so
 * the check keeps up with the transfer on a busy machine; `verify` decodes
 * every value. The checker is freed by checkFinish. */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#include "backup.h"
#include "object.h"
#include "rdb.h"
#include "rio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void countKey(void *ctx, size_t offset, int dbid, int rdbtype, sds key, robj *val,
                     long long expire) {
    (void)offset, (void)rdbtype, (void)key;
    backupCounts *c = ctx;
    c->keys++;
    if (dbid >= 0 && dbid < BACKUP_MAX_DBS) c->keys_db[dbid]++;
    if (val->type < BACKUP_TYPES) c->keys_type[val->type]++;
    if (expire != -1) c->expires++;
}

static void countSkimmed(void *ctx, size_t offset, int dbid, int rdbtype, long long expire) {
    (void)offset;
    backupCounts *c = ctx;
    int type = rdbObjectTypeOf(rdbtype);
    c->keys++;
    if (dbid >= 0 && dbid < BACKUP_MAX_DBS) c->keys_db[dbid]++;
    if (type >= 0 && type < BACKUP_TYPES) c->keys_type[type]++;
    if (expire != -1) c->expires++;
}

static void countAux(void *ctx, size_t offset, sds field, sds value) {
    (void)ctx, (void)offset, (void)field, (void)value;
}

int backupScanFile(const char *path, backupKeyFn *fn, backupLibraryFn *lib, void *ctx, rdbLoadStats *st,
                   sds *err) {
    rdbLoadObserver obs = {.aux = countAux, .key = fn, .function = lib, .ctx = ctx, .check_only = 1};
    rdbLoadSetObserver(&obs);
    memset(st, 0, sizeof(*st));
    int ret = rdbLoadFile(path, 0, st, err);
    rdbLoadSetObserver(NULL);
    if (ret == 1) *err = sdscatprintf(sdsempty(), "%s does not exist", path);
    return ret == 0 ? 0 : -1;
}

static void countFromStats(backupCounts *c, const rdbLoadStats *st) {
    c->rdb_version = st->version;
    c->stream_db = st->has_repl && st->repl.stream_db >= 0 ? st->repl.stream_db : 0;
}

int backupCountFile(const char *path, backupCounts *c, sds *err) {
    memset(c, 0, sizeof(*c));
    rdbLoadStats st;
    int ret = backupScanFile(path, countKey, NULL, c, &st, err);
    countFromStats(c, &st);
    return ret;
}

struct backupChecker {
    int rd, wr; /* the pipe; rd belongs to the thread, wr to the feeder */
    pthread_t thread;
    rdbLoadObserver obs;
    rdbLoadStats st;
    backupCounts counts;
    sds err;
    int ret;
};

static void *checkThread(void *arg) {
    backupChecker *c = arg;
    rio r;
    rioInitWithFd(&r, c->rd);
    c->ret = rdbLoadRio(&r, 0, &c->st, &c->err);
    rioFreeFd(&r);
    /* The feeder's next write fails (EPIPE, ignored) instead of blocking. */
    close(c->rd);
    return NULL;
}

backupChecker *checkStart(sds *err) {
    backupChecker *c = calloc(1, sizeof(*c));
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) == -1) {
        *err = sdscatprintf(sdsempty(), "pipe: %s", strerror(errno));
        free(c);
        return NULL;
    }
    c->rd = fds[0], c->wr = fds[1];
    /* A larger pipe: fewer wake-ups of the two sides (a hint; may fail). */
    fcntl(c->wr, F_SETPIPE_SZ, 1024 * 1024);
    signal(SIGPIPE, SIG_IGN);
    c->obs = (rdbLoadObserver){.aux = countAux,
                               .key = countKey,
                               .ctx = &c->counts,
                               .check_only = 1,
                               .skim = 1,
                               .skimmed = countSkimmed};
    rdbLoadSetObserver(&c->obs);
    if (pthread_create(&c->thread, NULL, checkThread, c) != 0) {
        rdbLoadSetObserver(NULL);
        close(c->rd), close(c->wr);
        free(c);
        *err = sdsnew("cannot start the checking thread");
        return NULL;
    }
    return c;
}

void checkFeed(backupChecker *c, const void *buf, size_t len) {
    const char *p = buf;
    while (len && c->wr != -1) {
        ssize_t n = write(c->wr, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            /* The loader is done (an error, or bytes after the RDB's end):
             * what it says is the verdict. */
            close(c->wr);
            c->wr = -1;
            return;
        }
        p += n, len -= (size_t)n;
    }
}

int checkFinish(backupChecker *c, backupCounts *out, sds *err) {
    if (c->wr != -1) close(c->wr);
    pthread_join(c->thread, NULL);
    rdbLoadSetObserver(NULL);
    int ret = c->ret == 0 ? 0 : -1;
    if (ret == 0) {
        *out = c->counts;
        countFromStats(out, &c->st);
    } else {
        *err = c->err ? c->err : sdsnew("the snapshot is truncated");
        c->err = NULL;
    }
    sdsfree(c->err);
    free(c);
    return ret;
}
