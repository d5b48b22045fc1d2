/* prune: `cairn-backup prune`, retention.
 *
 * A backup is kept when it is one of the newest --keep-last N, or when it
 * was taken within --keep-within DURATION (7d, 12h, 30m, 90s or seconds),
 * or when it is the newest one taken before that window: its archived
 * stream holds the restore points from the window's start to the next
 * backup. The newest backup is always kept. A pruned backup goes with its
 * archived stream (stream/ID); its manifest is removed first, so a prune
 * cut short leaves files no listing counts, never a backup missing its
 * data. backups/.tmp-* (a backup being written) is never touched. */
#include "backup.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int backupParseDuration(const char *s, double *secs) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return 0;
    double unit = !*end               ? 1
                  : !strcmp(end, "s") ? 1
                  : !strcmp(end, "m") ? 60
                  : !strcmp(end, "h") ? 3600
                  : !strcmp(end, "d") ? 86400
                  : !strcmp(end, "w") ? 604800
                                      : -1;
    if (unit < 0) return 0;
    *secs = v * unit;
    return 1;
}

/* Remove every file of dir, then dir. */
static int pruneRemoveDir(const char *dir, const char *first) {
    int ret = 0;
    if (first) {
        sds p = sdscatprintf(sdsempty(), "%s/%s", dir, first);
        if (unlink(p) == -1) ret = -1;
        sdsfree(p);
        repoFsyncDir(dir, NULL);
    }
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        sds p = sdscatprintf(sdsempty(), "%s/%s", dir, de->d_name);
        if (unlink(p) == -1) ret = -1;
        sdsfree(p);
    }
    if (d) closedir(d);
    if (rmdir(dir) == -1) ret = -1;
    return ret;
}

int backupPrune(const char *repo, int keep_last, double keep_within, int dry_run) {
    sds err = NULL, bad = NULL;
    if (repoCheck(repo, &err) == -1) {
        fprintf(stderr, "cairn-backup: %s\n", err);
        sdsfree(err);
        return 1;
    }
    int n, status = 0, pruned = 0;
    backupManifest **list = repoListBackups(repo, &n, &bad);
    if (bad) {
        /* Something unreadable may be what a kept point needs: do nothing. */
        fprintf(stderr, "cairn-backup: prune refused, unreadable: %s\n", bad);
        sdsfree(bad);
        repoFreeList(list, n);
        return 1;
    }
    double cutoff = keep_within >= 0 ? backupNow() - keep_within : 0;
    for (int j = 0; j < n; j++) {
        const backupManifest *m = list[j];
        int keep = j == n - 1 || (keep_last > 0 && j >= n - keep_last);
        if (keep_within >= 0 &&
            (m->time >= cutoff || (j + 1 < n && list[j + 1]->time >= cutoff) || j == n - 1))
            keep = 1;
        if (keep) continue;
        sds t = backupFormatTime(m->time);
        if (backup_json)
            printf("%s\"%s\"", pruned ? "," : "{\"pruned\":[", m->id);
        else
            printf("%s %s (%s)\n", dry_run ? "would prune" : "pruned", m->id, t);
        pruned++;
        sdsfree(t);
        if (dry_run) continue;
        sds bdir = repoBackupDir(repo, m->id), sdir = segDir(repo, m->id);
        if (pruneRemoveDir(bdir, "manifest") == -1) status = 1;
        if (access(sdir, F_OK) == 0 && pruneRemoveDir(sdir, NULL) == -1) status = 1;
        sdsfree(bdir);
        sdsfree(sdir);
    }
    sds b = sdscatprintf(sdsempty(), "%s/backups", repo),
        s = sdscatprintf(sdsempty(), "%s/stream", repo);
    if (!dry_run && pruned) {
        repoFsyncDir(b, NULL);
        if (access(s, F_OK) == 0) repoFsyncDir(s, NULL);
    }
    sdsfree(b);
    sdsfree(s);
    if (backup_json)
        printf("%s],\"backups\":%d,\"dry_run\":%s}\n", pruned ? "" : "{\"pruned\":[", n,
               dry_run ? "true" : "false");
    else
        printf("%d of %d backups %s\n", pruned, n, dry_run ? "would be pruned" : "pruned");
    if (status) fprintf(stderr, "cairn-backup: some files could not be removed\n");
    repoFreeList(list, n);
    return status;
}
