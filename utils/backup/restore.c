/* restore: `cairn-backup restore`, a backup (and the archived stream after
 * it) back into a data directory.
 *
 * The point: --backup ID (that snapshot alone), --offset N (a source
 * offset inside some backup's archived range), --at TIME (the newest backup
 * taken at or before TIME, plus the stream bytes that had arrived by TIME),
 * --before-command NAME (just before the last such command in the archive),
 * or the end of the newest backup's archived range. --backup ID with one
 * of the others searches that backup's timeline only (a timeline that a
 * failover diverged from: `list` names the offsets only it holds). A cut is moved back to
 * a command boundary outside any transaction (replay.c).
 *
 * The snapshot is decompressed by zstd straight into the output file in
 * one pass while both the stored bytes' and the RDB's SHA-256 are taken
 * and compared with the manifest at the end (a failure removes the file),
 * and every segment's file is checked against its meta (segment.c) before
 * anything is renamed into place. With nothing to replay the result is
 * TO/dump.rdb; otherwise TO/appendonlydir holds the snapshot as the AOF
 * base and the replayed commands as its increment, with a Redis 7.0
 * manifest, which cairn and redis-server started with `appendonly yes`
 * and `dir TO` load. */
#include "backup.h"
#include "aof_manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

int backupParseTime(const char *s, double *t) {
    char *end;
    double v = strtod(s, &end);
    if (*s && !*end && strchr("0123456789.", *s) && !strchr(s, '-')) {
        *t = v;
        return 1;
    }
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    int consumed = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &consumed) != 6 &&
        sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &consumed) != 6)
        return 0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const char *p = s + consumed;
    double frac = 0;
    if (*p == '.' || *p == ',') {
        double scale = 0.1;
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10) frac += (*p - '0') * scale;
    }
    long tz = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1, hh = 0, mm = 0, n = 0;
        if (sscanf(p + 1, "%2d:%2d%n", &hh, &mm, &n) == 2 ||
            sscanf(p + 1, "%2d%2d%n", &hh, &mm, &n) == 2)
            p += 1 + n;
        else
            return 0;
        tz = sign * (hh * 3600L + mm * 60L);
    } else {
        return 0; /* a local time would be ambiguous: UTC or an offset is required */
    }
    if (*p) return 0;
    *t = (double)timegm(&tm) - (double)tz + frac;
    return 1;
}

/* A backup's archived stream: the contiguous segments from its offset. */
typedef struct restoreLine {
    sds bytes; /* the stream bytes (b->offset, end] */
    long long end;
    segIndex *idx; /* every arrival mark, ascending */
    int nidx;
    int gap; /* segments exist past a hole: the range ends at the hole */
} restoreLine;

static void restoreLineFree(restoreLine *t) {
    sdsfree(t->bytes);
    free(t->idx);
    memset(t, 0, sizeof(*t));
}

/* The end offset of b's contiguous archive, from the metas alone. */
static long long restoreLineEnd(const char *repo, const backupManifest *b) {
    int n;
    segMeta **segs = segList(repo, b->id, &n, NULL);
    long long end = b->offset;
    for (int j = 0; j < n && segs[j]->start == end; j++) end = segs[j]->end;
    segFreeList(segs, n);
    return end;
}

/* Read (and check) the segments of b's archive up to `upto` (-1: all). */
static int restoreLineLoad(const char *repo, const backupManifest *b, long long upto,
                           restoreLine *t, sds *err) {
    memset(t, 0, sizeof(*t));
    t->bytes = sdsempty();
    t->end = b->offset;
    int n;
    sds bad = NULL;
    segMeta **segs = segList(repo, b->id, &n, &bad);
    int ret = 0;
    for (int j = 0; j < n && segs[j]->start == t->end && (upto < 0 || t->end < upto); j++) {
        sds data = segRead(segs[j], err);
        if (!data) {
            ret = -1;
            break;
        }
        t->bytes = sdscatsds(t->bytes, data);
        sdsfree(data);
        t->idx = realloc(t->idx, sizeof(*t->idx) * (size_t)(t->nidx + segs[j]->nidx));
        memcpy(t->idx + t->nidx, segs[j]->idx, sizeof(*t->idx) * (size_t)segs[j]->nidx);
        t->nidx += segs[j]->nidx;
        t->end = segs[j]->end;
    }
    for (int j = 0; j < n; j++)
        if (segs[j]->start > t->end) t->gap = 1;
    /* A damaged meta inside the range must not shorten it silently. */
    if (ret == 0 && bad && (upto < 0 || t->end < upto)) {
        *err = sdscatprintf(sdsempty(), "%s", bad);
        ret = -1;
    }
    sdsfree(bad);
    segFreeList(segs, n);
    if (ret == -1) restoreLineFree(t);
    return ret;
}

/* Choose the backup and the stream offset to stop at (*cut). */
static const backupManifest *restorePick(const char *repo, backupManifest **list, int n,
                                         const backupRestoreOptions *o, restoreLine *t,
                                         long long *cut, sds *err) {
    if (o->id && (o->have_time || o->have_offset || o->before)) {
        /* That backup's timeline alone: offsets of timelines that diverged
         * overlap, and --at would pick the newest backup. */
        for (int j = 0; j < n; j++)
            if (!strcmp(list[j]->id, o->id)) {
                backupRestoreOptions one = *o;
                one.id = NULL;
                return restorePick(repo, list + j, 1, &one, t, cut, err);
            }
    }
    if (o->id) {
        for (int j = 0; j < n; j++)
            if (!strcmp(list[j]->id, o->id)) {
                *cut = list[j]->offset;
                return list[j];
            }
        *err = sdscatprintf(sdsempty(), "no backup %s", o->id);
        return NULL;
    }
    if (o->have_offset) {
        for (int j = n - 1; j >= 0; j--) {
            if (o->offset < list[j]->offset || o->offset > restoreLineEnd(repo, list[j])) continue;
            if (restoreLineLoad(repo, list[j], o->offset, t, err) == -1) return NULL;
            *cut = replayBoundary(t->bytes, sdslen(t->bytes), list[j]->offset, o->offset);
            if (*cut != o->offset) {
                *err = sdscatprintf(
                    sdsempty(),
                    "offset %lld is inside a command or transaction (the one before ends at %lld)",
                    o->offset, *cut);
                restoreLineFree(t);
                return NULL;
            }
            return list[j];
        }
        *err = sdscatprintf(
            sdsempty(), "no backup or archived stream holds offset %lld (see `list`)", o->offset);
        return NULL;
    }
    if (o->before) {
        for (int j = n - 1; j >= 0; j--) {
            if (restoreLineLoad(repo, list[j], -1, t, err) == -1) return NULL;
            long long at = replayFindLast(t->bytes, sdslen(t->bytes), list[j]->offset, o->before);
            if (at >= 0) {
                *cut = replayBoundary(t->bytes, sdslen(t->bytes), list[j]->offset, at);
                return list[j];
            }
            restoreLineFree(t);
        }
        *err = sdscatprintf(sdsempty(), "no %s in the archived stream", o->before);
        return NULL;
    }
    const backupManifest *b = NULL;
    for (int j = 0; j < n; j++)
        if (!o->have_time || list[j]->time <= o->time)
            b = list[j]; /* oldest first: the last is the newest */
    if (!b) {
        *err = sdsnew(o->have_time ? "no backup was taken at or before that time"
                                   : "the repository holds no backup");
        return NULL;
    }
    if (restoreLineLoad(repo, b, -1, t, err) == -1) return NULL;
    if (!o->have_time && t->gap) {
        /* "The end" would silently be the hole's start. */
        *err = sdscatprintf(sdsempty(),
                            "the archive after backup %s has a gap at offset %lld (a segment is "
                            "missing): refusing to restore its end; --offset or --at before it "
                            "restores what precedes the gap",
                            b->id, t->end);
        restoreLineFree(t);
        return NULL;
    }
    long long limit = b->offset;
    for (int j = 0; j < t->nidx; j++)
        if (!o->have_time || t->idx[j].time <= o->time) limit = t->idx[j].offset;
    if (o->have_time && (!t->nidx || t->idx[t->nidx - 1].time < o->time)) {
        sds e = backupFormatTime(t->nidx ? t->idx[t->nidx - 1].time : b->time);
        if (t->gap) {
            *err = sdscatprintf(sdsempty(),
                                "the archive after backup %s has a gap at offset %lld (%s), before "
                                "the time asked: refusing to cross it",
                                b->id, t->end, e);
            sdsfree(e);
            restoreLineFree(t);
            return NULL;
        }
        backupLog("note: the archive after backup %s ends at %s, before the time asked", b->id, e);
        sdsfree(e);
    }
    *cut = replayBoundary(t->bytes, sdslen(t->bytes), b->offset, limit);
    return b;
}

/* Decompress the backup's file into `out` in one pass: the stored bytes
 * are hashed as they are read and the RDB as it is written (straight from
 * zstd's output buffer to the file, writeback started as it goes), and
 * both digests are compared with the manifest at the end; on any failure
 * `out` is removed, so nothing damaged is left for a server to start from.
 * An encrypted file is hashed, then decrypted to a temp copy first. */
#define RESTORE_CHUNK (1024 * 1024)
static int restoreWrite(const char *repo, const backupManifest *m, const char *out, sds *err) {
    sds dir = repoBackupDir(repo, m->id);
    sds path = sdscatprintf(sdsempty(), "%s/%s", dir, m->file);
    sdsfree(dir);
    char hex[65], rdbhex[65];
    long long size;
    int ret = -1, fd = -1, frame_bad = 0;
    FILE *in = NULL;
    sds plain = NULL;
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    char *ibuf = malloc(RESTORE_CHUNK), *obuf = malloc(ZSTD_DStreamOutSize() * 8);
    size_t ocap = ZSTD_DStreamOutSize() * 8, zret = 1;
    backupSha *fsha = NULL, *sha = shaNew();
    long long written = 0;
    off_t flushed = 0;
    if (m->enc_keyid[0]) {
        if (shaFile(path, hex, &size, NULL, NULL, err) == -1) goto done;
        if (strcmp(hex, m->file_sha256)) goto badfile;
        if (!(plain = backupPlainFile(path, m->enc_keyid, err))) goto done;
    } else {
        fsha = shaNew();
    }
    in = fopen(plain ? plain : path, "r");
    if (!in) {
        *err = sdscatprintf(sdsempty(), "%s: %s", path, strerror(errno));
        goto done;
    }
    fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd == -1) {
        *err = sdscatprintf(sdsempty(), "creating %s: %s", out, strerror(errno));
        goto done;
    }
    size_t n;
    while ((n = fread(ibuf, 1, RESTORE_CHUNK, in)) > 0) {
        if (fsha) shaUpdate(fsha, ibuf, n);
        ZSTD_inBuffer zin = {ibuf, n, 0};
        /* Past a bad frame the rest is only hashed: a damaged file is
         * named by its digest, as verify names it. */
        while (!frame_bad && zin.pos < zin.size) {
            ZSTD_outBuffer zout = {obuf, ocap, 0};
            zret = ZSTD_decompressStream(dctx, &zout, &zin);
            if (ZSTD_isError(zret) || (zret == 0 && zin.pos < zin.size)) frame_bad = 1;
            if (repoWriteAll(fd, obuf, zout.pos) == -1) {
                *err = sdscatprintf(sdsempty(), "writing %s: %s", out, strerror(errno));
                goto done;
            }
            shaUpdate(sha, obuf, zout.pos);
            written += (long long)zout.pos;
            repoWriteback(fd, &flushed, (off_t)written);
            if (zret == 0) break;
        }
    }
    if (ferror(in)) {
        *err = sdscatprintf(sdsempty(), "reading %s: %s", path, strerror(errno));
        goto done;
    }
    if (fsha) {
        shaFinal(fsha, hex);
        fsha = NULL;
        if (strcmp(hex, m->file_sha256)) goto badfile;
    }
    shaFinal(sha, rdbhex);
    sha = NULL;
    if (frame_bad || zret != 0 || written != m->rdb_bytes) {
        *err = sdscatprintf(
            sdsempty(), "%s: %s; the frame ends at RDB offset %lld, the manifest says %lld bytes",
            path, frame_bad ? "not a sound zstd frame" : "the frame is cut short", written,
            m->rdb_bytes);
        goto done;
    }
    if (strcmp(rdbhex, m->rdb_sha256)) {
        *err = sdscatprintf(sdsempty(),
                            "%s: the decompressed RDB's SHA-256 differs from the manifest", path);
        goto done;
    }
    if (fsync(fd) == -1) {
        *err = sdscatprintf(sdsempty(), "writing %s: %s", out, strerror(errno));
        goto done;
    }
    ret = 0;
    goto done;
badfile:
    *err = sdscatprintf(
        sdsempty(),
        "%s: SHA-256 differs from the manifest (run verify for the offset); nothing restored",
        path);
done:
    if (fd != -1) close(fd);
    if (ret == -1 && fd != -1) unlink(out);
    if (in) fclose(in);
    if (fsha) shaFinal(fsha, hex);
    if (sha) shaFinal(sha, rdbhex);
    if (plain) backupPlainDone(plain, path);
    ZSTD_freeDCtx(dctx);
    free(ibuf);
    free(obuf);
    sdsfree(plain);
    sdsfree(path);
    return ret;
}

/* The AOF form: appendonlydir/ with the snapshot as base, the commands
 * up to `cut` as the increment, and the manifest written last. */
static int restoreAofDir(const backupRestoreOptions *o, const backupManifest *m,
                         const restoreLine *t, long long cut, sds *err) {
    sds dir = sdscatprintf(sdsempty(), "%s/appendonlydir", o->to);
    aofManifest *am = aofManifestCreate();
    const char *base = aofManifestNewBase(am, "appendonly.aof", 1);
    const char *incr = aofManifestNewIncr(am, "appendonly.aof");
    sds basepath = aofPath(dir, base), incrpath = aofPath(dir, incr);
    sds mname = aofManifestFileName("appendonly.aof"), mpath = aofPath(dir, mname);
    sds cmds = NULL;
    int ret = -1;
    if (access(mpath, F_OK) == 0 && !o->force) {
        *err = sdscatprintf(sdsempty(), "%s exists (--force replaces it)", mpath);
        goto done;
    }
    if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
        *err = sdscatprintf(sdsempty(), "creating %s: %s", dir, strerror(errno));
        goto done;
    }
    if (restoreWrite(o->repo, m, basepath, err) == -1) goto done;
    cmds = replayToAof(t->bytes, (size_t)(cut - m->offset), m->offset, m->stream_db);
    if (repoWriteFileAtomic(incrpath, cmds, sdslen(cmds), err) == -1) goto done;
    if (aofManifestPersist(am, dir, "appendonly.aof", err) == -1) goto done;
    if (repoFsyncDir(dir, err) == -1 || repoFsyncDir(o->to, err) == -1) goto done;
    ret = 0;
done:
    sdsfree(cmds);
    sdsfree(basepath);
    sdsfree(incrpath);
    sdsfree(mname);
    sdsfree(mpath);
    sdsfree(dir);
    aofManifestFree(am);
    return ret;
}

/* --to-server: the snapshot's file checked against its manifest, then loaded. */
static int restoreToServer(const backupRestoreOptions *o, const backupManifest *m,
                           const restoreLine *t, long long cut, sds *err) {
    sds dir = repoBackupDir(o->repo, m->id);
    sds path = sdscatprintf(sdsempty(), "%s/%s", dir, m->file);
    sdsfree(dir);
    char hex[65];
    long long size;
    int ret = -1;
    if (shaFile(path, hex, &size, NULL, NULL, err) == -1) goto done;
    if (strcmp(hex, m->file_sha256)) {
        *err =
            sdscatprintf(sdsempty(), "%s: SHA-256 differs from the manifest; nothing loaded", path);
        goto done;
    }
    backupLog("loading backup %s and the stream up to offset %lld into %s", m->id, cut,
              o->to_server);
    sds plain = backupPlainFile(path, m->enc_keyid, err);
    if (!plain) goto done;
    ret = backupLoadToServer(o, plain, t->bytes, (size_t)(cut - m->offset), m->stream_db, err);
    backupPlainDone(plain, path);
    sdsfree(plain);
done:
    sdsfree(path);
    return ret;
}

/* --json: what was restored, as one line. */
static void restorePrintJson(const backupManifest *m, long long cut, const char *to,
                             const char *what) {
    printf("{\"backup\":\"%s\",\"replid\":\"%s\",\"backup_offset\":%lld,\"offset\":%lld,"
           "\"keys\":%lld,\"to\":\"%s\",\"written\":\"%s\"}\n",
           m->id, m->replid, m->offset, cut, m->keys, to, what);
}

int backupRestore(const backupRestoreOptions *o) {
    sds err = NULL, bad = NULL;
    int n = 0, status = 1;
    backupManifest **list = NULL;
    restoreLine t;
    memset(&t, 0, sizeof(t));
    long long cut = 0;
    sds target = sdscatprintf(sdsempty(), "%s/dump.rdb", o->to ? o->to : ".");
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%d", target, (int)getpid());
    if (repoCheck(o->repo, &err) == -1) goto done;
    list = repoListBackups(o->repo, &n, &bad);
    const backupManifest *m = restorePick(o->repo, list, n, o, &t, &cut, &err);
    if (!m) goto done;
    if (o->to_server) {
        status = restoreToServer(o, m, &t, cut, &err) == 0 ? 0 : 1;
        goto done;
    }
    if (mkdir(o->to, 0755) == -1 && errno != EEXIST) {
        err = sdscatprintf(sdsempty(), "creating %s: %s", o->to, strerror(errno));
        goto done;
    }
    sds when = backupFormatTime(m->time);
    backupLog(
        "restoring backup %s (%s, offset %lld, %lld keys) and the stream up to offset %lld into %s",
        m->id, when, m->offset, m->keys, cut, o->to);
    sdsfree(when);
    if (cut > m->offset) {
        if (restoreAofDir(o, m, &t, cut, &err) == -1) goto done;
        if (backup_json)
            restorePrintJson(m, cut, o->to, "appendonlydir");
        else
            printf("restored %s + stream (%lld, %lld]: %s/appendonlydir (start the server with "
                   "appendonly yes and dir %s)\n",
                   m->id, m->offset, cut, o->to, o->to);
        status = 0;
        goto done;
    }
    if (!o->force && access(target, F_OK) == 0) {
        err = sdscatprintf(sdsempty(), "%s exists (--force replaces it)", target);
        goto done;
    }
    if (restoreWrite(o->repo, m, tmp, &err) == -1) {
        unlink(tmp);
        goto done;
    }
    if (rename(tmp, target) == -1) {
        err = sdscatprintf(sdsempty(), "renaming %s: %s", tmp, strerror(errno));
        unlink(tmp);
        goto done;
    }
    if (repoFsyncDir(o->to, &err) == -1) goto done;
    if (backup_json)
        restorePrintJson(m, cut, o->to, "dump.rdb");
    else
        printf("restored %s: %s (%lld keys, replid %s offset %lld)\n", m->id, target, m->keys,
               m->replid, m->offset);
    status = 0;
done:
    if (status) fprintf(stderr, "cairn-backup: restore failed: %s\n", err ? err : "unknown error");
    if (bad) fprintf(stderr, "cairn-backup: warning: unreadable: %s\n", bad);
    restoreLineFree(&t);
    sdsfree(err);
    sdsfree(bad);
    sdsfree(target);
    sdsfree(tmp);
    repoFreeList(list, n);
    return status;
}
