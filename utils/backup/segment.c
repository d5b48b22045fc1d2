/* segment: the archived replication stream, as segment files.
 *
 *   REPO/stream/ID/                 the stream that follows backup ID
 *   REPO/stream/ID/S.seg.zst        stream bytes (S, E] in one zstd frame
 *   REPO/stream/ID/S.seg.meta       replid, S, E, the file's size and
 *                                   SHA-256, "at OFFSET TIME" lines (the
 *                                   source offset reached when those bytes
 *                                   arrived, and when), sealed (repo.c)
 *   REPO/stream/ID/active-S.raw     the segment being written, plain
 *   REPO/stream/ID/active-S.idx     "replid X", then its "at" lines
 *
 * S is a source offset, printed with 20 digits so names sort. Bytes enter
 * through segAppend (raw file, then an index line; both fdatasynced by
 * segSync every second and at the end); segClose compresses the active
 * pair into the sealed pair (temp, fsync, rename, directory fsync) and
 * deletes it. After a crash segRecover does the same for what is left,
 * cutting the raw bytes back to the last indexed offset: bytes without a
 * time are not archived, and the next PSYNC fetches them again.
 * Ownership: a segWriter and a segMeta list belong to their caller. */
#include "backup.h"
#include "rio.h"
#include "rio_codec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEG_HEAD "cairn-backup-segment 1"

struct segWriter {
    sds dir, raw, idx;
    char replid[41];
    long long start, end;
    int rawfd, idxfd;
    double opened, last_at;
};

sds segDir(const char *repo, const char *timeline) {
    return sdscatprintf(sdsempty(), "%s/stream/%s", repo, timeline);
}

static int segMkdirs(const char *repo, const char *timeline, sds *err) {
    sds top = sdscatprintf(sdsempty(), "%s/stream", repo), dir = segDir(repo, timeline);
    int ok =
        (mkdir(top, 0755) == 0 || errno == EEXIST) && (mkdir(dir, 0755) == 0 || errno == EEXIST);
    if (!ok) *err = sdscatprintf(sdsempty(), "creating %s: %s", dir, strerror(errno));
    sdsfree(top);
    sdsfree(dir);
    return ok ? 0 : -1;
}

segWriter *segOpen(const char *repo, const char *timeline, const char *replid, long long start,
                   sds *err) {
    if (segMkdirs(repo, timeline, err) == -1) return NULL;
    segWriter *w = calloc(1, sizeof(*w));
    w->dir = segDir(repo, timeline);
    w->raw = sdscatprintf(sdsempty(), "%s/active-%020lld.raw", w->dir, start);
    w->idx = sdscatprintf(sdsempty(), "%s/active-%020lld.idx", w->dir, start);
    snprintf(w->replid, sizeof(w->replid), "%s", replid);
    w->start = w->end = start;
    w->opened = backupNow();
    w->rawfd = open(w->raw, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    w->idxfd = open(w->idx, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    sds head = sdscatprintf(sdsempty(), "replid %s\n", replid);
    int ok = w->rawfd != -1 && w->idxfd != -1 &&
             write(w->idxfd, head, sdslen(head)) == (ssize_t)sdslen(head);
    sdsfree(head);
    if (ok)
        ok = repoFsyncDir(w->dir, err) == 0;
    else
        *err = sdscatprintf(sdsempty(), "creating %s: %s", w->raw, strerror(errno));
    if (!ok) {
        if (w->rawfd != -1) close(w->rawfd);
        if (w->idxfd != -1) close(w->idxfd);
        unlink(w->raw);
        unlink(w->idx);
        sdsfree(w->dir);
        sdsfree(w->raw);
        sdsfree(w->idx);
        free(w);
        return NULL;
    }
    return w;
}

long long segWriterBytes(const segWriter *w) {
    return w->end - w->start;
}
double segWriterAge(const segWriter *w) {
    return backupNow() - w->opened;
}
long long segWriterEnd(const segWriter *w) {
    return w->end;
}

static int segWriteAll(int fd, const void *buf, size_t len) {
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, (const char *)buf + off, len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        off += (size_t)n;
    }
    return 0;
}

int segAppend(segWriter *w, const void *buf, size_t len, double now, sds *err) {
    if (segWriteAll(w->rawfd, buf, len) == -1) {
        *err = sdscatprintf(sdsempty(), "writing %s: %s", w->raw, strerror(errno));
        return -1;
    }
    w->end += (long long)len;
    char line[96];
    int n = snprintf(line, sizeof(line), "at %lld %.6f\n", w->end, now);
    if (segWriteAll(w->idxfd, line, (size_t)n) == -1) {
        *err = sdscatprintf(sdsempty(), "writing %s: %s", w->idx, strerror(errno));
        return -1;
    }
    w->last_at = now;
    return 0;
}

int segSync(segWriter *w, sds *err) {
    /* The bytes before their index line: an indexed offset is always on disk. */
    if (fdatasync(w->rawfd) == -1 || fdatasync(w->idxfd) == -1) {
        *err = sdscatprintf(sdsempty(), "fsync of %s: %s", w->raw, strerror(errno));
        return -1;
    }
    return 0;
}

/* Seal raw[0..len) (bytes (start, start+len]) with its index lines. */
static int segSeal(const char *dir, const char *replid, long long start, const char *raw,
                   size_t len, const char *at_lines, sds *err) {
    sds zpath = sdscatprintf(sdsempty(), "%s/%020lld.seg.zst", dir, start);
    sds ztmp = sdscatprintf(sdsempty(), "%s.tmp-%d", zpath, (int)getpid());
    sds mpath = sdscatprintf(sdsempty(), "%s/%020lld.seg.meta", dir, start);
    int ret = -1;
    FILE *fp = fopen(ztmp, "w");
    if (!fp) {
        *err = sdscatprintf(sdsempty(), "creating %s: %s", ztmp, strerror(errno));
        goto done;
    }
    rio file, z;
    rioInitWithFile(&file, fp);
    int ok = rioInitCodecWriter(&z, &file, RIO_CODEC_ZSTD);
    if (ok) ok = rioWrite(&z, raw, len) != 0;
    if (ok)
        ok = rioCodecFinish(&z);
    else
        rioCodecFinish(&z);
    ok = ok && fflush(fp) == 0 && fsync(fileno(fp)) == 0;
    fclose(fp);
    if (!ok || rename(ztmp, zpath) == -1) {
        *err = sdscatprintf(sdsempty(), "writing %s: %s", zpath, strerror(errno));
        unlink(ztmp);
        goto done;
    }
    char hex[65];
    long long size;
    if (cryptKeyId() && cryptEncryptInPlace(zpath, err) == -1) goto done;
    if (shaFile(zpath, hex, &size, NULL, NULL, err) == -1) goto done;
    sds meta = sdscatprintf(
        sdsempty(), "%s\nreplid %s\nstart %lld\nend %lld\nfile-bytes %lld\nfile-sha256 %s\n",
        SEG_HEAD, replid, start, start + (long long)len, size, hex);
    if (cryptKeyId()) meta = sdscatprintf(meta, "encryption aes-256-gcm %s\n", cryptKeyId());
    meta = sdscat(meta, at_lines);
    meta = repoSeal(meta, "meta-sha256");
    ret = repoWriteFileAtomic(mpath, meta, sdslen(meta), err);
    /* A failing --archive-cmd is logged; the archive here stays whole. */
    if (ret == 0 && backupArchiveFile(zpath) == 0) backupArchiveFile(mpath);
    sdsfree(meta);
done:
    sdsfree(zpath);
    sdsfree(ztmp);
    sdsfree(mpath);
    return ret;
}

/* Seal an active pair: raw bytes up to the last complete index line. */
static int segFinish(const char *dir, const char *rawpath, const char *idxpath, long long start,
                     sds *err) {
    sds e = NULL;
    sds raw = repoReadFile(rawpath, &e), idx = repoReadFile(idxpath, &e);
    int ret = -1;
    char replid[41] = "";
    if (!raw || !idx) {
        *err = sdscatprintf(sdsempty(), "%s: %s", rawpath, e);
        goto done;
    }
    sds lines = sdsempty();
    long long last = start;
    const char *p = idx;
    while (1) {
        const char *nl = strchr(p, '\n');
        if (!nl) break; /* a torn last line is dropped */
        long long off;
        double t;
        if (!strncmp(p, "replid ", 7) && nl - p == 47)
            memcpy(replid, p + 7, 40), replid[40] = '\0';
        else if (sscanf(p, "at %lld %lf", &off, &t) == 2 && off > last &&
                 off - start <= (long long)sdslen(raw)) {
            lines = sdscatlen(lines, p, (size_t)(nl - p + 1));
            last = off;
        }
        p = nl + 1;
    }
    if (last > start && replid[0])
        ret = segSeal(dir, replid, start, raw, (size_t)(last - start), lines, err);
    else
        ret = 0; /* nothing with a time: nothing to keep */
    sdsfree(lines);
    if (ret == 0) {
        unlink(rawpath);
        unlink(idxpath);
        ret = repoFsyncDir(dir, err);
    }
done:
    sdsfree(e);
    sdsfree(raw);
    sdsfree(idx);
    return ret;
}

int segClose(segWriter *w, sds *err) {
    int ret = segSync(w, err);
    close(w->rawfd);
    close(w->idxfd);
    if (ret == 0) ret = segFinish(w->dir, w->raw, w->idx, w->start, err);
    sdsfree(w->dir);
    sdsfree(w->raw);
    sdsfree(w->idx);
    free(w);
    return ret;
}

int segRecover(const char *repo, sds *err) {
    sds top = sdscatprintf(sdsempty(), "%s/stream", repo);
    DIR *d = opendir(top);
    struct dirent *de;
    int ret = 0;
    while (d && ret == 0 && (de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        sds dir = sdscatprintf(sdsempty(), "%s/%s", top, de->d_name);
        DIR *sd = opendir(dir);
        struct dirent *se;
        while (sd && ret == 0 && (se = readdir(sd))) {
            long long start;
            char tail[8];
            if (sscanf(se->d_name, "active-%20lld.%3s", &start, tail) != 2 || strcmp(tail, "raw"))
                continue;
            sds raw = sdscatprintf(sdsempty(), "%s/%s", dir, se->d_name);
            sds idx = sdscatprintf(sdsempty(), "%s/active-%020lld.idx", dir, start);
            backupLog("sealing the segment an earlier run left: %s", raw);
            ret = segFinish(dir, raw, idx, start, err);
            sdsfree(raw);
            sdsfree(idx);
        }
        if (sd) closedir(sd);
        sdsfree(dir);
    }
    if (d) closedir(d);
    sdsfree(top);
    return ret;
}

/* ---- reading ---- */

static segMeta *segMetaParse(const char *text, size_t len, sds *err) {
    size_t bodylen;
    if (repoUnseal(text, len, "meta-sha256", "segment meta", &bodylen, err) == -1) return NULL;
    segMeta *m = calloc(1, sizeof(*m));
    sds body = sdsnewlen(text, bodylen);
    int count, head = 0;
    sds *lines = sdssplitlen(body, (ssize_t)sdslen(body), "\n", 1, &count);
    sdsfree(body);
    for (int j = 0; j < count; j++) {
        const char *l = lines[j];
        long long a;
        double t;
        if (!*l) continue;
        if (!strcmp(l, SEG_HEAD))
            head = 1;
        else if (!strncmp(l, "replid ", 7) && strlen(l) == 47)
            memcpy(m->replid, l + 7, 41);
        else if (sscanf(l, "start %lld", &a) == 1)
            m->start = a;
        else if (sscanf(l, "end %lld", &a) == 1)
            m->end = a;
        else if (sscanf(l, "file-bytes %lld", &a) == 1)
            m->file_bytes = a;
        else if (!strncmp(l, "encryption aes-256-gcm ", 23) && strlen(l + 23) == 16)
            memcpy(m->enc_keyid, l + 23, 17);
        else if (!strncmp(l, "file-sha256 ", 12))
            repoHex(l + 12, m->sha256);
        else if (sscanf(l, "at %lld %lf", &a, &t) == 2) {
            m->idx = realloc(m->idx, sizeof(*m->idx) * (size_t)(m->nidx + 1));
            m->idx[m->nidx].offset = a;
            m->idx[m->nidx++].time = t;
        }
    }
    sdsfreesplitres(lines, count);
    if (!head || !m->replid[0] || !m->sha256[0] || m->end <= m->start || !m->nidx ||
        m->idx[m->nidx - 1].offset != m->end) {
        *err = sdsnew("segment meta incomplete");
        segFreeMeta(m);
        return NULL;
    }
    return m;
}

void segFreeMeta(segMeta *m) {
    if (!m) return;
    sdsfree(m->path);
    free(m->idx);
    free(m);
}

static int segCompare(const void *a, const void *b) {
    const segMeta *x = *(segMeta *const *)a, *y = *(segMeta *const *)b;
    return x->start < y->start ? -1 : x->start > y->start;
}

segMeta **segList(const char *repo, const char *timeline, int *n, sds *bad) {
    sds dir = segDir(repo, timeline);
    DIR *d = opendir(dir);
    segMeta **list = NULL;
    *n = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        long long start;
        char tail[8];
        if (sscanf(de->d_name, "%20lld.seg.%4s", &start, tail) != 2 || strcmp(tail, "meta"))
            continue;
        sds mpath = sdscatprintf(sdsempty(), "%s/%s", dir, de->d_name);
        sds err = NULL, text = repoReadFile(mpath, &err);
        segMeta *m = text ? segMetaParse(text, sdslen(text), &err) : NULL;
        if (m && m->start != start) {
            segFreeMeta(m);
            m = NULL;
            err = sdsnew("its start is not its name's");
        }
        if (m) {
            m->path = sdscatprintf(sdsempty(), "%s/%020lld.seg.zst", dir, start);
            list = realloc(list, sizeof(*list) * (size_t)(*n + 1));
            list[(*n)++] = m;
        } else if (bad && !*bad) {
            *bad = sdscatprintf(sdsempty(), "%s: %s", mpath, err);
        }
        sdsfree(err);
        sdsfree(text);
        sdsfree(mpath);
    }
    if (d) closedir(d);
    sdsfree(dir);
    if (*n > 1) qsort(list, (size_t)*n, sizeof(*list), segCompare);
    return list;
}

void segFreeList(segMeta **list, int n) {
    for (int j = 0; j < n; j++) segFreeMeta(list[j]);
    free(list);
}

sds segRead(const segMeta *m, sds *err) {
    char hex[65];
    long long size;
    if (shaFile(m->path, hex, &size, NULL, NULL, err) == -1) return NULL;
    if (size != m->file_bytes || strcmp(hex, m->sha256)) {
        *err = sdscatprintf(
            sdsempty(), "%s: %lld bytes with SHA-256 %.12s..., the meta says %lld bytes, %.12s...",
            m->path, size, hex, m->file_bytes, m->sha256);
        return NULL;
    }
    sds plain = backupPlainFile(m->path, m->enc_keyid, err);
    if (!plain) return NULL;
    FILE *fp = fopen(plain, "r");
    backupPlainDone(plain, m->path); /* open: the bytes stay readable */
    sdsfree(plain);
    rio r;
    if (!fp || rioCodecDetect(fp) != RIO_CODEC_ZSTD ||
        !rioInitCodecReader(&r, fp, RIO_CODEC_ZSTD)) {
        *err = sdscatprintf(sdsempty(), "%s: not a zstd frame", m->path);
        if (fp) fclose(fp);
        return NULL;
    }
    size_t len = (size_t)(m->end - m->start);
    sds out = sdsnewlen(NULL, len);
    int ok = rioRead(&r, out, len) && rioCodecAtEnd(&r);
    rioCodecFree(&r);
    fclose(fp);
    if (!ok) {
        *err = sdscatprintf(sdsempty(), "%s: the frame does not hold the %zu bytes its meta says",
                            m->path, len);
        sdsfree(out);
        return NULL;
    }
    return out;
}
