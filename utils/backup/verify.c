/* verify: `cairn-backup verify`, and the checks restore runs first.
 *
 * For each backup: the manifest's own SHA-256 (repo.c, while parsing),
 * then the stored file's size and the SHA-256 of every BACKUP_BLOCK bytes
 * against the manifest, then a load of the whole snapshot by the server's
 * loader in check-only mode (check.c's backupCountFile) whose key counts
 * must equal the manifest's. The first failure ends the run: it names the
 * file and the byte offset (of the first bad block in the stored file, and
 * the loader's own offset inside the RDB when it fails too). Then the
 * archived stream after it: each segment's meta seal, file size and
 * SHA-256, and every command parsed by the server's request parser
 * (replay.c), naming the segment and the stream offset of bad bytes. */
#include "backup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int backupVerifyOne(const char *repo, const backupManifest *m, sds *err) {
    sds dir = repoBackupDir(repo, m->id);
    sds path = sdscatprintf(sdsempty(), "%s/%s", dir, m->file);
    sdsfree(dir);
    char hex[65];
    long long size = 0;
    char(*blocks)[65] = NULL;
    int nblocks = 0, ret = -1;
    sds e = NULL;
    if (shaFile(path, hex, &size, &blocks, &nblocks, &e) == -1) {
        *err = e;
        goto done;
    }
    sds problem = NULL;
    if (strcmp(hex, m->file_sha256)) {
        long long bad = -1;
        for (int j = 0; j < nblocks && j < m->nblocks && bad < 0; j++)
            if (strcmp(blocks[j], m->block_sha256[j])) bad = (long long)j * BACKUP_BLOCK;
        if (bad < 0) bad = (long long)(nblocks < m->nblocks ? nblocks : m->nblocks) * BACKUP_BLOCK;
        if (size != m->file_bytes)
            problem = sdscatprintf(
                sdsempty(),
                "%s: %lld bytes, the manifest says %lld; first bad byte at offset %lld or after",
                path, size, m->file_bytes, bad);
        else
            problem = sdscatprintf(
                sdsempty(),
                "%s: SHA-256 differs from the manifest; first bad byte at offset %lld..%lld", path,
                bad, bad + BACKUP_BLOCK - 1 < size ? bad + BACKUP_BLOCK - 1 : size - 1);
    }
    backupCounts c;
    sds plain = backupPlainFile(path, m->enc_keyid, &e);
    if (!plain) {
        *err = problem ? sdscatprintf(problem, "; %s", e) : sdsdup(e);
        sdsfree(e);
        goto done;
    }
    int counted = backupCountFile(plain, &c, &e);
    backupPlainDone(plain, path);
    sdsfree(plain);
    if (counted == -1) {
        *err = problem ? sdscatprintf(problem, "; the loader: %s", e)
                       : sdscatprintf(sdsempty(), "%s: the loader: %s", path, e);
        sdsfree(e);
        goto done;
    }
    if (problem) {
        *err = problem;
        goto done;
    }
    if (c.keys != m->keys || memcmp(c.keys_db, m->keys_db, sizeof(c.keys_db)) ||
        memcmp(c.keys_type, m->keys_type, sizeof(c.keys_type))) {
        *err = sdscatprintf(
            sdsempty(),
            "%s: loads %lld keys, the manifest says %lld (or per db/type counts differ)", path,
            c.keys, m->keys);
        goto done;
    }
    ret = 0;
done:
    free(blocks);
    sdsfree(path);
    return ret;
}

/* The archived stream after backup m: every meta sealed, every file's
 * size and SHA-256, and the concatenation parsed into commands. */
static int verifyStream(const char *repo, const backupManifest *m, int *nseg, sds *err) {
    int n;
    sds bad = NULL;
    segMeta **segs = segList(repo, m->id, &n, &bad);
    int ret = -1;
    *nseg = n;
    if (bad) {
        *err = bad;
        bad = NULL;
        goto done;
    }
    sds all = sdsempty();
    long long end = m->offset;
    for (int j = 0; j < n; j++) {
        sds data = segRead(segs[j], err);
        if (!data) {
            sdsfree(all);
            goto done;
        }
        if (segs[j]->start != end) {
            /* A hole: `stream` never leaves one (it resumes where the
             * archive ends), so a segment is missing. */
            *err = sdscatprintf(sdsempty(),
                                "stream after %s: offsets (%lld, %lld] are missing (a segment "
                                "before %s is gone)",
                                m->id, end, segs[j]->start, segs[j]->path);
            sdsfree(all);
            sdsfree(data);
            goto done;
        }
        all = sdscatsds(all, data);
        sdsfree(data);
        end = segs[j]->end;
        sds e = NULL;
        long long stop;
        /* Parse as far as this segment reaches; a command may continue in the next. */
        if (replayScan(all, sdslen(all), end - (long long)sdslen(all), NULL, NULL, &stop, &e) ==
            -1) {
            *err = sdscatprintf(sdsempty(), "%s: %s", segs[j]->path, e);
            sdsfree(e);
            sdsfree(all);
            goto done;
        }
        sdsrange(all, (ssize_t)(stop - (end - (long long)sdslen(all))), -1);
    }
    sdsfree(all);
    ret = 0;
done:
    sdsfree(bad);
    segFreeList(segs, n);
    return ret;
}

int backupVerify(const char *repo, const char *id, int json) {
    sds err = NULL, bad = NULL;
    if (repoCheck(repo, &err) == -1) {
        fprintf(stderr, "cairn-backup: %s\n", err);
        sdsfree(err);
        return 1;
    }
    int n, checked = 0, status = 0;
    backupManifest **list = repoListBackups(repo, &n, &bad);
    if (bad && (!id || strstr(bad, id))) {
        fprintf(stderr, "cairn-backup: verify failed: %s\n", bad);
        status = 1;
        goto done;
    }
    for (int j = 0; j < n; j++) {
        if (id && strcmp(list[j]->id, id)) continue;
        checked++;
        if (backupVerifyOne(repo, list[j], &err) == -1) {
            fprintf(stderr, "cairn-backup: verify failed: %s\n", err);
            if (json) printf("{\"ok\":false,\"id\":\"%s\"}\n", list[j]->id);
            status = 1;
            goto done;
        }
        int nseg = 0;
        if (verifyStream(repo, list[j], &nseg, &err) == -1) {
            fprintf(stderr, "cairn-backup: verify failed: %s\n", err);
            if (json) printf("{\"ok\":false,\"id\":\"%s\"}\n", list[j]->id);
            status = 1;
            goto done;
        }
        backupLog("ok %s: %lld keys, %lld bytes, %d stream segment%s", list[j]->id, list[j]->keys,
                  list[j]->file_bytes, nseg, nseg == 1 ? "" : "s");
    }
    if (id && !checked) {
        fprintf(stderr, "cairn-backup: no backup %s in %s\n", id, repo);
        status = 1;
    } else if (json) {
        printf("{\"ok\":true,\"backups\":%d}\n", checked);
    } else {
        printf("verified %d backup%s in %s: all sound\n", checked, checked == 1 ? "" : "s", repo);
    }
done:
    sdsfree(err);
    sdsfree(bad);
    repoFreeList(list, n);
    return status;
}
