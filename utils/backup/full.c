/* full: `cairn-backup full`, one consistent snapshot of a source.
 *
 * check.c's loader (check-only, skimming: nothing decoded or kept) reads
 * the source's full-sync payload through a rio whose reads pull it from
 * the link (link.c's backupPayloadPull) straight into the loader's
 * window, and every payload byte is teed on the way into the payload's
 * SHA-256 (rdb-sha256) and a zstd rio (rio_codec.c, the frame the
 * server's loader reads) writing backups/.tmp-ID/snapshot.rdb.zst through
 * a file rio that hashes what it writes (file-sha256, the per-block
 * digests) and starts its writeback as it goes. One thread, one copy out
 * of the socket; the loader proves the snapshot sound and counts its keys
 * as it arrives. So when the last byte is in, only the fsync, the
 * manifest and the rename into place are left (repo.c describes the
 * layout and the crash safety). With --encrypt-key the file is encrypted
 * and then hashed. */
#include "backup.h"
#include "object.h"
#include "rdb.h"
#include "rio.h"
#include "rio_codec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* zstd's level -1: a third less CPU than level 1 on the mixed benchmark
 * set (the tool competes with the source's snapshot child for the cores),
 * stored at 0.33 of the RDB instead of 0.26. */
#define FULL_ZSTD_LEVEL -1

/* The zstd writer's target: a file rio whose bytes are also hashed as
 * they go (file-sha256 and the per-block digests), so the stored file is
 * never read back. `r` first: the rio callbacks get &r. */
typedef struct fullFileRio {
    rio r;
    size_t (*file_write)(rio *r, const void *buf, size_t len);
    fileHasher *hash;
    off_t written, flushed; /* bytes written; those handed to writeback */
} fullFileRio;

static size_t fullFileWrite(rio *r, const void *buf, size_t len) {
    fullFileRio *f = (fullFileRio *)r;
    if (f->hash) fileHasherUpdate(f->hash, buf, len);
    if (!f->file_write(r, buf, len)) return 0;
    f->written += (off_t)len;
    /* What stdio holds is written first, so writeback sees it. */
    if (f->written - f->flushed >= REPO_WRITEBACK && fflush(r->io.file.fp) == EOF) return 0;
    repoWriteback(fileno(r->io.file.fp), &f->flushed, f->written);
    return 1;
}

typedef struct fullSink {
    rio *r;
    backupSha *sha;
    long long bytes, total;
    double last_log, started;
} fullSink;

static int fullSinkWrite(void *ctx, const void *buf, size_t len) {
    fullSink *s = ctx;
    shaUpdate(s->sha, buf, len);
    s->bytes += (long long)len;
    double now = backupNow();
    backupProgress("snapshot", s->bytes, s->total, s->started);
    if (!isatty(STDERR_FILENO) && now - s->last_log >= 5) {
        backupLog("received %lld bytes", s->bytes);
        s->last_log = now;
    }
    return rioWrite(s->r, buf, len) != 0;
}

/* The loader's reads: straight from the link into the loader's window,
 * the payload bytes teed to the sink on the way. */
typedef struct fullPull {
    backupPayload p;
    sds err; /* the link's failure, which explains a short read */
} fullPull;

static ssize_t fullPullRead(void *ctx, void *buf, size_t len) {
    fullPull *f = ctx;
    if (f->err) return -1;
    return backupPayloadPull(&f->p, buf, len, &f->err);
}

/* IDs sort by time: 20261202T020501.123Z. */
static sds fullMakeId(const char *repo, double t) {
    time_t secs = (time_t)t;
    struct tm tm;
    gmtime_r(&secs, &tm);
    char buf[64];
    strftime(buf, sizeof(buf), "%Y%m%dT%H%M%S", &tm);
    sds id = sdscatprintf(sdsempty(), "%s.%03dZ", buf, (int)((t - (double)secs) * 1000));
    for (int n = 2;; n++) {
        sds dir = repoBackupDir(repo, id);
        int exists = access(dir, F_OK) == 0;
        sdsfree(dir);
        if (!exists) return id;
        sdsfree(id);
        id = sdscatprintf(sdsempty(), "%s.%03dZ-%d", buf, (int)((t - (double)secs) * 1000), n);
    }
}

/* Receive the payload into `path` (zstd), hashing the payload and the
 * file and checking and counting the snapshot on the way (check.c), so the
 * work is done when the last byte is in. With --encrypt-key the file is
 * hashed after its encryption instead. 0 or -1 with *err. */
static int fullReceive(backupLink *l, const char *path, backupManifest *m, backupCounts *c,
                       sds *err) {
    FILE *fp = fopen(path, "w");
    if (!fp) {
        *err = sdscatprintf(sdsempty(), "creating %s: %s", path, strerror(errno));
        return -1;
    }
    fullFileRio file;
    rioInitWithFile(&file.r, fp);
    file.written = file.flushed = 0;
    file.file_write = file.r.write_fn;
    file.r.write_fn = fullFileWrite;
    file.hash = cryptKeyId() ? NULL : fileHasherNew();
    rio z;
    if (!rioInitCodecWriter(&z, &file.r, RIO_CODEC_ZSTD)) {
        *err = sdsnew("cannot set up zstd compression");
        goto fail;
    }
    /* One zstd thread: the socket is read, hashed and checked while the
     * last pieces are compressed, so the source never waits on zstd. */
    rioCodecTune(&z, FULL_ZSTD_LEVEL, 1);
    fullSink sink = {.r = &z,
                     .sha = shaNew(),
                     .last_log = backupNow(),
                     .started = backupNow(),
                     .total = l->size};
    fullPull pull = {.err = NULL};
    backupPayloadInit(&pull.p, l, fullSinkWrite, &sink);
    rio in;
    rioInitWithReader(&in, fullPullRead, &pull);
    sds e = NULL;
    int checked = checkRio(&in, c, &e);
    rioFreeFd(&in);
    /* What follows the RDB's end in the payload (an EOF payload's mark, if
     * the loader's last read stopped short of it). */
    static char rest[64 * 1024];
    while (checked == 0 && !pull.err && !pull.p.done)
        if (backupPayloadPull(&pull.p, rest, sizeof(rest), &pull.err) == -1) break;
    int ret = 0;
    if (pull.err) {
        *err = pull.err;
        pull.err = NULL;
        ret = -1;
    } else if (checked == -1) {
        *err = sdscatprintf(sdsempty(), "the received snapshot does not load: %s", e);
        ret = -1;
    }
    sdsfree(e);
    backupProgressEnd();
    int finished = rioCodecFinish(&z);
    shaFinal(sink.sha, m->rdb_sha256);
    m->rdb_bytes = pull.p.total;
    if (ret == 0 && (!finished || fflush(fp) == EOF || fsync(fileno(fp)) == -1)) {
        *err = sdscatprintf(sdsempty(), "writing %s: %s", path, strerror(errno));
        ret = -1;
    }
    if (file.hash)
        fileHasherFinal(file.hash, m->file_sha256, &m->file_bytes, &m->block_sha256, &m->nblocks);
    fclose(fp);
    return ret;
fail:
    if (file.hash) fileHasherFinal(file.hash, m->file_sha256, &m->file_bytes, NULL, NULL);
    fclose(fp);
    return -1;
}

static void fullPrint(const backupManifest *m, int json) {
    sds t = backupFormatTime(m->time);
    if (json) {
        printf("{\"id\":\"%s\",\"source\":\"%s\",\"replid\":\"%s\",\"offset\":%lld,\"time\":%.6f,"
               "\"rdb_bytes\":%lld,\"file_bytes\":%lld,\"keys\":%lld,\"seconds\":%.3f}\n",
               m->id, m->source, m->replid, m->offset, m->time, m->rdb_bytes, m->file_bytes,
               m->keys, m->finished - m->time);
    } else {
        printf("backup %s: %s at %s offset %lld (%s), %lld keys, RDB %lld bytes stored in %lld "
               "bytes, %.2f s\n",
               m->id, m->source, m->replid, m->offset, t, m->keys, m->rdb_bytes, m->file_bytes,
               m->finished - m->time);
    }
    sdsfree(t);
}

/* The payload of an open link becomes a backup in the repository. 0 with
 * *id (the new backup's) set, or -1 with *err. */
int backupStoreSnapshot(backupLink *l, const char *repo, const char *source, const char *timeline,
                        long long end, sds *id, sds *err) {
    backupManifest m;
    memset(&m, 0, sizeof(m));
    m.diverged_at = m.diverged_end = -1;
    if (timeline && l->diverged_at >= 0) {
        m.diverged_from = sdsnew(timeline);
        m.diverged_at = l->diverged_at;
        m.diverged_end = end;
    }
    m.id = fullMakeId(repo, l->sync_time);
    m.source = sdsnew(source);
    memcpy(m.replid, l->replid, 41);
    m.offset = l->offset;
    m.time = l->sync_time;
    m.file = sdsnew("snapshot.rdb.zst");
    sds tmpdir = sdscatprintf(sdsempty(), "%s/backups/.tmp-%s", repo, m.id);
    sds final = repoBackupDir(repo, m.id);
    sds snap = sdscatprintf(sdsempty(), "%s/%s", tmpdir, m.file);
    sds mpath = sdscatprintf(sdsempty(), "%s/manifest", tmpdir);
    sds text = NULL;
    int ok = 0;
    int owner = repoTmpDirCreate(tmpdir, err);
    if (owner == -1) goto done;
    backupCounts c;
    if (fullReceive(l, snap, &m, &c, err) == -1) goto done;
    backupLog("received the snapshot: %lld bytes, checked and counted on the way: %lld keys",
              m.rdb_bytes, c.keys);
    m.rdb_version = c.rdb_version;
    m.stream_db = c.stream_db;
    m.keys = c.keys;
    m.expires = c.expires;
    memcpy(m.keys_db, c.keys_db, sizeof(m.keys_db));
    memcpy(m.keys_type, c.keys_type, sizeof(m.keys_type));
    if (cryptKeyId()) {
        if (cryptEncryptInPlace(snap, err) == -1) goto done;
        memcpy(m.enc_keyid, cryptKeyId(), 17);
        if (shaFile(snap, m.file_sha256, &m.file_bytes, &m.block_sha256, &m.nblocks, err) == -1)
            goto done;
    }
    m.finished = backupNow();
    text = manifestFormat(&m);
    if (repoWriteFileAtomic(mpath, text, sdslen(text), err) == -1) goto done;
    if (rename(tmpdir, final) == -1) {
        *err = sdscatprintf(sdsempty(), "renaming %s to %s: %s", tmpdir, final, strerror(errno));
        goto done;
    }
    sds bdir = sdscatprintf(sdsempty(), "%s/backups", repo);
    int synced = repoFsyncDir(bdir, err);
    sdsfree(bdir);
    if (synced == -1) goto done;
    ok = 1;
    /* The data first, the manifest that vouches for it last. */
    sds fsnap = sdscatprintf(sdsempty(), "%s/%s", final, m.file);
    sds fman = sdscatprintf(sdsempty(), "%s/manifest", final);
    int archived = backupArchiveFile(fsnap) == 0 && backupArchiveFile(fman) == 0;
    sdsfree(fsnap);
    sdsfree(fman);
    if (!archived) {
        /* The backup itself is complete in the repository. */
        *err = sdsnew("--archive-cmd failed");
        ok = 0;
        *id = sdsdup(m.id);
        goto done;
    }
    fullPrint(&m, backup_json);
    *id = sdsdup(m.id);
done:
    if (!ok && !*id) {
        unlink(snap);
        unlink(mpath);
        rmdir(tmpdir);
    }
    if (owner != -1) close(owner);
    sdsfree(text);
    sdsfree(tmpdir);
    sdsfree(final);
    sdsfree(snap);
    sdsfree(mpath);
    sdsfree(m.id);
    sdsfree(m.source);
    sdsfree(m.file);
    sdsfree(m.diverged_from);
    free(m.block_sha256);
    return ok ? 0 : -1;
}

int backupFull(const backupLinkOptions *o, const char *repo) {
    sds err = NULL, id = NULL;
    if (repoInit(repo, &err) == -1) {
        fprintf(stderr, "cairn-backup: %s\n", err);
        sdsfree(err);
        return 1;
    }
    repoRemoveStaleTmp(repo);
    backupLog("connecting to %s:%d", o->host, o->port);
    backupLink *l = backupLinkOpen(o, &err);
    if (!l) {
        fprintf(stderr, "cairn-backup: %s:%d: %s\n", o->host, o->port, err);
        sdsfree(err);
        return 1;
    }
    backupLog("full sync from %s offset %lld (%s payload%s%s)", l->replid, l->offset,
              l->size < 0 ? "diskless EOF-mark" : "sized", l->server_info[0] ? ", " : "",
              l->server_info);
    sds source = sdscatprintf(sdsempty(), "%s:%d", o->host, o->port);
    int ret = backupStoreSnapshot(l, repo, source, NULL, -1, &id, &err);
    backupLinkClose(l);
    if (ret == -1)
        fprintf(stderr, "cairn-backup: full backup failed: %s\n", err ? err : "unknown error");
    sdsfree(source);
    sdsfree(err);
    sdsfree(id);
    return ret == 0 ? 0 : 1;
}
