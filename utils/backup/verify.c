/* verify: `cairn-backup verify`, and the checks restore runs first.
 *
 * For each backup: the manifest's own SHA-256 (repo.c, while parsing),
 * then the stored file's size and the SHA-256 of every BACKUP_BLOCK bytes
 * against the manifest, then a load of the whole snapshot by the server's
 * loader in check-only mode (full.c's backupCountFile) whose key counts
 * must equal the manifest's. The first failure ends the run: it names the
 * file and the byte offset (of the first bad block in the stored file, and
 * the loader's own offset inside the RDB when it fails too). */
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
    if (backupCountFile(path, &c, &e) == -1) {
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
        backupLog("ok %s: %lld keys, %lld bytes", list[j]->id, list[j]->keys, list[j]->file_bytes);
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
