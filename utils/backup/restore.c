/* restore: `cairn-backup restore`, a backup back into a data directory.
 *
 * The restore point is chosen from the manifests (--backup ID, --offset N
 * for the backup taken at exactly that source offset, --at TIME for the
 * newest backup taken at or before TIME, or the newest). Its zstd file is
 * decompressed through the server's codec rio into TO/dump.rdb.tmp-PID
 * while both the stored bytes' and the RDB's SHA-256 are compared with the
 * manifest; only when both match is the file fsynced and renamed to
 * TO/dump.rdb and TO fsynced. The RDB is byte for byte what the source
 * sent, so a cairn or a redis-server of the source's version (RDB 10 for
 * Redis 7.0) started with `dir TO` loads it. */
#include "backup.h"
#include "rio.h"
#include "rio_codec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

static const backupManifest *restorePick(backupManifest **list, int n,
                                         const backupRestoreOptions *o, sds *err) {
    const backupManifest *pick = NULL;
    for (int j = 0; j < n; j++) {
        const backupManifest *m = list[j];
        if (o->id) {
            if (!strcmp(m->id, o->id)) pick = m;
        } else if (o->have_offset) {
            if (m->offset == o->offset) pick = m;
        } else if (!o->have_time || m->time <= o->time) {
            pick = m; /* the list is oldest first: the last match is the newest */
        }
    }
    if (pick) return pick;
    if (o->id)
        *err = sdscatprintf(sdsempty(), "no backup %s", o->id);
    else if (o->have_offset)
        *err = sdscatprintf(sdsempty(),
                            "no restore point at offset %lld (without an archived stream only a "
                            "backup's own offset is one; see `list`)",
                            o->offset);
    else if (o->have_time)
        *err = sdsnew("no backup was taken at or before that time");
    else
        *err = sdsnew("the repository holds no backup");
    return NULL;
}

/* Decompress the backup's file into `out`, checking both digests. */
static int restoreWrite(const char *repo, const backupManifest *m, const char *out, sds *err) {
    sds dir = repoBackupDir(repo, m->id);
    sds path = sdscatprintf(sdsempty(), "%s/%s", dir, m->file);
    sdsfree(dir);
    char hex[65];
    long long size;
    int ret = -1;
    FILE *in = NULL, *fp = NULL;
    rio r;
    int reader = 0;
    /* The stored bytes first: a damaged file is named before anything is written. */
    if (shaFile(path, hex, &size, NULL, NULL, err) == -1) goto done;
    if (strcmp(hex, m->file_sha256)) {
        *err = sdscatprintf(
            sdsempty(),
            "%s: SHA-256 differs from the manifest (run verify for the offset); nothing restored",
            path);
        goto done;
    }
    in = fopen(path, "r");
    int codec = in ? rioCodecDetect(in) : RIO_CODEC_NONE;
    if (!in || codec != RIO_CODEC_ZSTD || !rioInitCodecReader(&r, in, codec)) {
        *err = sdscatprintf(sdsempty(), "%s: not a zstd frame", path);
        goto done;
    }
    reader = 1;
    fp = fopen(out, "w");
    if (!fp) {
        *err = sdscatprintf(sdsempty(), "creating %s: %s", out, strerror(errno));
        goto done;
    }
    static char buf[64 * 1024];
    backupSha *sha = shaNew();
    long long left = m->rdb_bytes;
    while (left > 0) {
        size_t n = left > (long long)sizeof(buf) ? sizeof(buf) : (size_t)left;
        if (!rioRead(&r, buf, n) || fwrite(buf, 1, n, fp) != n) break;
        shaUpdate(sha, buf, n);
        left -= (long long)n;
    }
    shaFinal(sha, hex);
    if (left || !rioCodecAtEnd(&r)) {
        *err = sdscatprintf(sdsempty(),
                            "%s: the frame ends at RDB offset %lld, the manifest says %lld bytes",
                            path, m->rdb_bytes - left, m->rdb_bytes);
        goto done;
    }
    if (strcmp(hex, m->rdb_sha256)) {
        *err = sdscatprintf(sdsempty(),
                            "%s: the decompressed RDB's SHA-256 differs from the manifest", path);
        goto done;
    }
    if (fflush(fp) == EOF || fsync(fileno(fp)) == -1) {
        *err = sdscatprintf(sdsempty(), "writing %s: %s", out, strerror(errno));
        goto done;
    }
    ret = 0;
done:
    if (fp) fclose(fp);
    if (reader) rioCodecFree(&r);
    if (in) fclose(in);
    sdsfree(path);
    return ret;
}

int backupRestore(const backupRestoreOptions *o) {
    sds err = NULL, bad = NULL;
    int n = 0, status = 1;
    backupManifest **list = NULL;
    sds target = sdscatprintf(sdsempty(), "%s/dump.rdb", o->to);
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%d", target, (int)getpid());
    if (repoCheck(o->repo, &err) == -1) goto done;
    list = repoListBackups(o->repo, &n, &bad);
    const backupManifest *m = restorePick(list, n, o, &err);
    if (!m) goto done;
    if (mkdir(o->to, 0755) == -1 && errno != EEXIST) {
        err = sdscatprintf(sdsempty(), "creating %s: %s", o->to, strerror(errno));
        goto done;
    }
    if (!o->force && access(target, F_OK) == 0) {
        err = sdscatprintf(sdsempty(), "%s exists (--force replaces it)", target);
        goto done;
    }
    sds t = backupFormatTime(m->time);
    backupLog("restoring backup %s (%s, offset %lld, %lld keys) into %s", m->id, t, m->offset,
              m->keys, target);
    if (o->have_time && o->time > m->time)
        backupLog("note: the state is the backup's at %s; the repository has no archived stream to "
                  "replay up to the time asked",
                  t);
    sdsfree(t);
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
    printf("restored %s: %s (%lld keys, replid %s offset %lld)\n", m->id, target, m->keys,
           m->replid, m->offset);
    status = 0;
done:
    if (status) fprintf(stderr, "cairn-backup: restore failed: %s\n", err ? err : "unknown error");
    if (bad) fprintf(stderr, "cairn-backup: warning: unreadable: %s\n", bad);
    sdsfree(err);
    sdsfree(bad);
    sdsfree(target);
    sdsfree(tmp);
    repoFreeList(list, n);
    return status;
}
