/* list: `cairn-backup list`, the repository's restore points.
 *
 * One line per backup (oldest first) with its moment, source position,
 * key count and sizes, then the archived stream after it: the contiguous
 * range of offsets and times its segments cover, and a gap when a segment
 * does not start where the previous one ended (restore never crosses one).
 * Then the earliest and latest restorable times and the periods between
 * one backup's archive end and the next backup, which no restore point
 * covers. A backup that `stream` took because its source was behind the
 * archive (a promoted replica that missed the last writes) names the
 * timeline and the offsets only that older timeline holds. Reads only
 * metas and manifests. */
#include "backup.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct listLine {
    long long end, gap_at;
    double end_time;
    int segments;
} listLine;

static listLine listArchive(const char *repo, const backupManifest *b, sds *bad) {
    listLine t = {.end = b->offset, .gap_at = -1, .end_time = b->time};
    int n;
    segMeta **segs = segList(repo, b->id, &n, bad);
    for (int j = 0; j < n; j++) {
        if (segs[j]->start != t.end) {
            t.gap_at = t.end;
            break;
        }
        t.end = segs[j]->end;
        t.end_time = segs[j]->idx[segs[j]->nidx - 1].time;
        t.segments++;
    }
    segFreeList(segs, n);
    return t;
}

int backupList(const char *repo, int json) {
    sds err = NULL, bad = NULL;
    if (repoCheck(repo, &err) == -1) {
        fprintf(stderr, "cairn-backup: %s\n", err);
        sdsfree(err);
        return 1;
    }
    int n;
    backupManifest **list = repoListBackups(repo, &n, &bad);
    listLine *lines = calloc((size_t)(n ? n : 1), sizeof(*lines));
    double latest = 0;
    if (json) printf("{\"backups\":[");
    for (int j = 0; j < n; j++) {
        backupManifest *m = list[j];
        lines[j] = listArchive(repo, m, &bad);
        listLine *t = &lines[j];
        if (t->end_time > latest) latest = t->end_time;
        sds a = backupFormatTime(m->time), b = backupFormatTime(t->end_time);
        if (json) {
            printf("%s{\"id\":\"%s\",\"time\":%.6f,\"source\":\"%s\",\"replid\":\"%s\",\"offset\":%"
                   "lld,"
                   "\"keys\":%lld,\"rdb_bytes\":%lld,\"file_bytes\":%lld,\"stream_end\":%lld,"
                   "\"stream_end_time\":%.6f,\"segments\":%d,\"gap_at\":%lld",
                   j ? "," : "", m->id, m->time, m->source, m->replid, m->offset, m->keys,
                   m->rdb_bytes, m->file_bytes, t->end, t->end_time, t->segments, t->gap_at);
            if (m->diverged_from)
                printf(",\"diverged_from\":\"%s\",\"diverged_at\":%lld,\"diverged_end\":%lld",
                       m->diverged_from, m->diverged_at, m->diverged_end);
            printf("}");
        } else {
            printf("backup %s  time %s  source %s  replid %s  offset %lld  keys %lld  rdb %lld  "
                   "stored %lld\n",
                   m->id, a, m->source, m->replid, m->offset, m->keys, m->rdb_bytes, m->file_bytes);
            if (t->segments)
                printf("  stream (%lld, %lld] in %d segment%s, restorable %s .. %s\n", m->offset,
                       t->end, t->segments, t->segments == 1 ? "" : "s", a, b);
            if (m->diverged_from)
                printf("  diverged: taken after a failover; this source holds backup %s's history "
                       "only up to offset %lld, its archived tail (%lld, %lld] is not on it "
                       "(restorable from %s's timeline: restore --backup %s --at/--offset)\n",
                       m->diverged_from, m->diverged_at, m->diverged_at, m->diverged_end,
                       m->diverged_from, m->diverged_from);
            if (t->gap_at >= 0)
                printf("  GAP: nothing archived after offset %lld; later segments are not "
                       "restorable\n",
                       t->gap_at);
        }
        sdsfree(a);
        sdsfree(b);
    }
    if (json) {
        printf("],\"earliest\":%.6f,\"latest\":%.6f}\n", n ? list[0]->time : 0.0, latest);
    } else if (n) {
        sds a = backupFormatTime(list[0]->time), b = backupFormatTime(latest);
        printf("restorable: %d backup%s, from %s to %s\n", n, n == 1 ? "" : "s", a, b);
        sdsfree(a);
        sdsfree(b);
        for (int j = 0; j + 1 < n; j++) {
            if (lines[j].end_time >= list[j + 1]->time) continue;
            sds x = backupFormatTime(lines[j].end_time), y = backupFormatTime(list[j + 1]->time);
            printf("not restorable: %s .. %s (between backup %s's archive and the next backup)\n",
                   x, y, list[j]->id);
            sdsfree(x);
            sdsfree(y);
        }
    } else {
        printf("no backups in %s\n", repo);
    }
    if (bad) fprintf(stderr, "cairn-backup: unreadable: %s\n", bad);
    int status = bad ? 1 : 0;
    free(lines);
    sdsfree(bad);
    repoFreeList(list, n);
    return status;
}
