/* repo: the cairn-backup repository on disk, and the manifest format.
 *
 *   REPO/cairn-backup.repo            marker: "cairn-backup repository 1"
 *   REPO/backups/ID/snapshot.rdb.zst  the source's RDB in one zstd frame
 *   REPO/backups/ID/manifest          what the backup is (below)
 *   REPO/backups/.tmp-ID/             a backup being written (ignored; its
 *                                     writer holds a flock on it, and the
 *                                     next full or stream removes it if
 *                                     none does)
 *
 * A backup is written into .tmp-ID, every file fsynced, the manifest last
 * (temp, fsync, rename), then the directory renamed to ID and backups/
 * fsynced: a crash leaves a complete backup or a .tmp-* directory.
 *
 * The manifest is text, one "key value" per line, ending with
 * "manifest-sha256 <hex>" over every byte before that line, so a damaged
 * manifest is told from a damaged snapshot. Blocks: "block N <hex>", the
 * SHA-256 of each BACKUP_BLOCK bytes of the stored file, so verify can
 * name where a file went bad. Manifests enter through manifestParse and
 * leave through manifestFormat; the caller frees both results. */
#define _GNU_SOURCE /* sync_file_range */
#include "backup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPO_MARKER      "cairn-backup.repo"
#define REPO_MARKER_TEXT "cairn-backup repository 1\n"
#define MANIFEST_HEAD    "cairn-backup-manifest 1"

const char *backupTypeNames[BACKUP_TYPES] = {"string", "list", "set", "zset", "hash"};

/* ---- SHA-256 ---- */

struct backupSha {
    EVP_MD_CTX *ctx;
};

backupSha *shaNew(void) {
    backupSha *s = malloc(sizeof(*s));
    s->ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL);
    return s;
}

void shaUpdate(backupSha *s, const void *buf, size_t len) {
    EVP_DigestUpdate(s->ctx, buf, len);
}

void shaFinal(backupSha *s, char hex[65]) {
    unsigned char md[32];
    unsigned int n = 0;
    EVP_DigestFinal_ex(s->ctx, md, &n);
    for (int j = 0; j < 32; j++) snprintf(hex + j * 2, 3, "%02x", md[j]);
    EVP_MD_CTX_free(s->ctx);
    free(s);
}

void shaOf(const void *buf, size_t len, char hex[65]) {
    backupSha *s = shaNew();
    shaUpdate(s, buf, len);
    shaFinal(s, hex);
}

struct fileHasher {
    backupSha *whole, *block;
    size_t in_block; /* bytes of the current block so far */
    char (*blocks)[65];
    int nblocks;
    long long size;
};

fileHasher *fileHasherNew(void) {
    fileHasher *h = calloc(1, sizeof(*h));
    h->whole = shaNew();
    return h;
}

static void fileHasherEndBlock(fileHasher *h) {
    h->blocks = realloc(h->blocks, sizeof(*h->blocks) * (size_t)(h->nblocks + 1));
    shaFinal(h->block, h->blocks[h->nblocks++]);
    h->block = NULL;
    h->in_block = 0;
}

void fileHasherUpdate(fileHasher *h, const void *buf, size_t len) {
    const char *p = buf;
    shaUpdate(h->whole, p, len);
    h->size += (long long)len;
    while (len) {
        if (!h->block) h->block = shaNew();
        size_t n = BACKUP_BLOCK - h->in_block;
        if (n > len) n = len;
        shaUpdate(h->block, p, n);
        h->in_block += n;
        p += n, len -= n;
        if (h->in_block == BACKUP_BLOCK) fileHasherEndBlock(h);
    }
}

void fileHasherFinal(fileHasher *h, char hex[65], long long *size, char (**blocks)[65],
                     int *nblocks) {
    if (h->block) fileHasherEndBlock(h);
    shaFinal(h->whole, hex);
    *size = h->size;
    if (blocks) {
        *blocks = h->blocks;
        *nblocks = h->nblocks;
    } else {
        free(h->blocks);
    }
    free(h);
}

int shaFile(const char *path, char hex[65], long long *size, char (**blocks)[65], int *nblocks,
            sds *err) {
    FILE *fp = fopen(path, "r");
    if (!fp) {
        *err = sdscatprintf(sdsempty(), "%s: %s", path, strerror(errno));
        return -1;
    }
    static char buf[BACKUP_BLOCK];
    fileHasher *h = fileHasherNew();
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) fileHasherUpdate(h, buf, n);
    int bad = ferror(fp);
    fclose(fp);
    long long total;
    char(*b)[65] = NULL;
    int nb = 0;
    fileHasherFinal(h, hex, &total, &b, &nb);
    if (bad) {
        free(b);
        *err = sdscatprintf(sdsempty(), "%s: read error at offset %lld", path, total);
        return -1;
    }
    *size = total;
    if (blocks) {
        *blocks = b;
        *nblocks = nb;
    } else {
        free(b);
    }
    return 0;
}

/* ---- files ---- */

int repoFsyncDir(const char *dir, sds *err) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd == -1 || fsync(fd) == -1) {
        if (err) *err = sdscatprintf(sdsempty(), "fsync of directory %s: %s", dir, strerror(errno));
        if (fd != -1) close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static sds repoDirOf(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? sdsnewlen(path, (size_t)(slash - path)) : sdsnew(".");
}

int repoWriteAll(int fd, const void *buf, size_t len) {
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, (const char *)buf + off, len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        off += (size_t)n;
    }
    return 0;
}

void repoWriteback(int fd, off_t *flushed, off_t written) {
    if (written - *flushed < REPO_WRITEBACK) return;
    sync_file_range(fd, *flushed, written - *flushed, SYNC_FILE_RANGE_WRITE);
    *flushed = written;
}

/* repoWriteFileAtomic without the directory's fsync when !sync_dir (the
 * caller syncs the directory once after more changes to it). */
static int repoWriteFile(const char *path, const void *buf, size_t len, int sync_dir, sds *err) {
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd == -1) goto fail;
    if (repoWriteAll(fd, buf, len) == -1) goto fail;
    if (fsync(fd) == -1 || close(fd) == -1) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) == -1) goto fail;
    sdsfree(tmp);
    if (!sync_dir) return 0;
    sds dir = repoDirOf(path);
    int r = repoFsyncDir(dir, err);
    sdsfree(dir);
    return r;
fail:
    *err = sdscatprintf(sdsempty(), "writing %s: %s", path, strerror(errno));
    if (fd != -1) close(fd);
    unlink(tmp);
    sdsfree(tmp);
    return -1;
}

int repoWriteFileAtomic(const char *path, const void *buf, size_t len, sds *err) {
    return repoWriteFile(path, buf, len, 1, err);
}

/* ---- layout ---- */

int repoInit(const char *repo, sds *err) {
    if (mkdir(repo, 0755) == -1 && errno != EEXIST) {
        *err = sdscatprintf(sdsempty(), "creating %s: %s", repo, strerror(errno));
        return -1;
    }
    sds marker = sdscatprintf(sdsempty(), "%s/%s", repo, REPO_MARKER);
    sds backups = sdscatprintf(sdsempty(), "%s/backups", repo);
    int ret = 0, created = 0;
    if (access(marker, F_OK) == -1) {
        DIR *d = opendir(repo);
        struct dirent *de;
        int entries = 0;
        while (d && (de = readdir(d)))
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) entries++;
        if (d) closedir(d);
        /* Never adopt a directory that holds something else. */
        if (entries) {
            *err =
                sdscatprintf(sdsempty(), "%s is not empty and not a cairn-backup repository", repo);
            ret = -1;
        } else {
            ret = repoWriteFile(marker, REPO_MARKER_TEXT, strlen(REPO_MARKER_TEXT), 0, err);
            created = 1;
        }
    }
    if (ret == 0 && mkdir(backups, 0755) == 0)
        created = 1;
    else if (ret == 0 && errno != EEXIST) {
        *err = sdscatprintf(sdsempty(), "creating %s: %s", backups, strerror(errno));
        ret = -1;
    }
    /* One fsync for the marker's rename and backups/ (none when both were there). */
    if (ret == 0 && created) ret = repoFsyncDir(repo, err);
    sdsfree(marker);
    sdsfree(backups);
    return ret;
}

/* ---- backups being written ---- */

/* The owner's flock on the directory itself tells a live writer from a
 * dead one: the kernel drops it when the process dies, however it dies.
 * A cleaner that took the lock first may have removed the directory
 * between our mkdir and our flock; a removed directory has no links, and
 * we make it again. */
int repoTmpDirCreate(const char *path, sds *err) {
    for (int attempt = 0; attempt < 3; attempt++) {
        if (mkdir(path, 0755) == -1) break;
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd == -1) {
            if (errno == ENOENT) continue;
            break;
        }
        struct stat st;
        if (flock(fd, LOCK_EX) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0) return fd;
        close(fd);
    }
    *err = sdscatprintf(sdsempty(), "creating %s: %s", path, strerror(errno));
    return -1;
}

static int repoRemoveFlatDir(const char *path) {
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        sds f = sdscatprintf(sdsempty(), "%s/%s", path, de->d_name);
        unlink(f);
        sdsfree(f);
    }
    closedir(d);
    return rmdir(path);
}

void repoRemoveStaleTmp(const char *repo) {
    sds backups = sdscatprintf(sdsempty(), "%s/backups", repo);
    DIR *d = opendir(backups);
    if (!d) {
        sdsfree(backups);
        return;
    }
    struct dirent *de;
    int removed = 0;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, ".tmp-", 5)) continue;
        sds path = sdscatprintf(sdsempty(), "%s/%s", backups, de->d_name);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd != -1 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
            if (repoRemoveFlatDir(path) == 0) {
                backupLog("removed %s, a backup left unfinished by an earlier run", path);
                removed++;
            } else {
                backupLog("could not remove %s (left by an earlier run): %s", path, strerror(errno));
            }
        }
        if (fd != -1) close(fd);
        sdsfree(path);
    }
    closedir(d);
    if (removed) {
        sds err = NULL;
        if (repoFsyncDir(backups, &err) == -1) sdsfree(err);
    }
    sdsfree(backups);
}

int repoCheck(const char *repo, sds *err) {
    sds marker = sdscatprintf(sdsempty(), "%s/%s", repo, REPO_MARKER);
    FILE *fp = fopen(marker, "r");
    char line[64] = "";
    if (fp) {
        if (!fgets(line, sizeof(line), fp)) line[0] = '\0';
        fclose(fp);
    }
    int ok = fp && !strcmp(line, REPO_MARKER_TEXT);
    if (!ok)
        *err = sdscatprintf(sdsempty(), "%s is not a cairn-backup repository (no valid %s)", repo,
                            REPO_MARKER);
    sdsfree(marker);
    return ok ? 0 : -1;
}

sds repoBackupDir(const char *repo, const char *id) {
    return sdscatprintf(sdsempty(), "%s/backups/%s", repo, id);
}

static int repoCompareTime(const void *a, const void *b) {
    const backupManifest *x = *(backupManifest *const *)a, *y = *(backupManifest *const *)b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    return strcmp(x->id, y->id);
}

backupManifest **repoListBackups(const char *repo, int *n, sds *bad) {
    sds dir = sdscatprintf(sdsempty(), "%s/backups", repo);
    DIR *d = opendir(dir);
    backupManifest **list = NULL;
    *n = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        sds path = sdscatprintf(sdsempty(), "%s/%s/manifest", dir, de->d_name);
        sds err = NULL;
        backupManifest *m = manifestRead(path, &err);
        if (m && strcmp(m->id, de->d_name)) {
            manifestFree(m);
            m = NULL;
            err = sdsnew("its id is not its directory's name");
        }
        if (!m) {
            if (bad && !*bad) *bad = sdscatprintf(sdsempty(), "%s: %s", path, err);
            sdsfree(err);
        } else {
            list = realloc(list, sizeof(*list) * (size_t)(*n + 1));
            list[(*n)++] = m;
        }
        sdsfree(path);
    }
    if (d) closedir(d);
    sdsfree(dir);
    if (*n > 1) qsort(list, (size_t)*n, sizeof(*list), repoCompareTime);
    return list;
}

void repoFreeList(backupManifest **list, int n) {
    for (int j = 0; j < n; j++) manifestFree(list[j]);
    free(list);
}

/* ---- the manifest ---- */

sds manifestFormat(const backupManifest *m) {
    sds s = sdscatprintf(sdsempty(), "%s\n", MANIFEST_HEAD);
    s = sdscatprintf(s, "id %s\nsource %s\nreplid %s\noffset %lld\n", m->id, m->source, m->replid,
                     m->offset);
    s = sdscatprintf(s, "time %.6f\nfinished %.6f\n", m->time, m->finished);
    s = sdscatprintf(s, "stream-db %d\n", m->stream_db);
    s = sdscatprintf(s, "rdb-version %d\nrdb-bytes %lld\nrdb-sha256 %s\n", m->rdb_version,
                     m->rdb_bytes, m->rdb_sha256);
    s = sdscatprintf(s, "file %s\nfile-bytes %lld\nfile-sha256 %s\n", m->file, m->file_bytes,
                     m->file_sha256);
    for (int j = 0; j < m->nblocks; j++)
        s = sdscatprintf(s, "block %d %s\n", j, m->block_sha256[j]);
    if (m->enc_keyid[0]) s = sdscatprintf(s, "encryption aes-256-gcm %s\n", m->enc_keyid);
    if (m->diverged_from)
        s = sdscatprintf(s, "diverged-from %s %lld %lld\n", m->diverged_from, m->diverged_at,
                         m->diverged_end);
    s = sdscatprintf(s, "keys %lld\nexpires %lld\n", m->keys, m->expires);
    for (int j = 0; j < BACKUP_MAX_DBS; j++)
        if (m->keys_db[j]) s = sdscatprintf(s, "keys-db %d %lld\n", j, m->keys_db[j]);
    for (int j = 0; j < BACKUP_TYPES; j++)
        if (m->keys_type[j])
            s = sdscatprintf(s, "keys-type %s %lld\n", backupTypeNames[j], m->keys_type[j]);
    return repoSeal(s, "manifest-sha256");
}

sds repoSeal(sds s, const char *key) {
    char hex[65];
    shaOf(s, sdslen(s), hex);
    return sdscatprintf(s, "%s %s\n", key, hex);
}

int repoUnseal(const char *text, size_t len, const char *key, const char *what, size_t *body,
               sds *err) {
    size_t klen = strlen(key);
    const char *tail = NULL;
    for (const char *p = text; p < text + len;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        if (!nl) break;
        if (!strncmp(p, key, klen) && p[klen] == ' ') tail = p;
        p = nl + 1;
    }
    if (!tail || (size_t)(tail - text) + klen + 1 + 65 != len || text[len - 1] != '\n') {
        *err = sdscatprintf(sdsempty(), "%s truncated (no final %s line)", what, key);
        return -1;
    }
    char want[65], got[65];
    memcpy(want, tail + klen + 1, 64);
    want[64] = '\0';
    shaOf(text, (size_t)(tail - text), got);
    if (strcmp(want, got)) {
        *err = sdscatprintf(sdsempty(), "%s damaged: its SHA-256 is %s, its last line says %s",
                            what, got, want);
        return -1;
    }
    *body = (size_t)(tail - text);
    return 0;
}

int repoHex(const char *v, char out[65]) {
    if (strlen(v) != 64 || strspn(v, "0123456789abcdef") != 64) return 0;
    memcpy(out, v, 65);
    return 1;
}

backupManifest *manifestParse(const char *text, size_t len, sds *err) {
    size_t bodylen;
    if (repoUnseal(text, len, "manifest-sha256", "manifest", &bodylen, err) == -1) return NULL;
    backupManifest *m = calloc(1, sizeof(*m));
    m->diverged_at = m->diverged_end = -1;
    int lineno = 0, have_head = 0;
    sds body = sdsnewlen(text, bodylen);
    int count;
    sds *lines = sdssplitlen(body, (ssize_t)sdslen(body), "\n", 1, &count);
    sdsfree(body);
    for (int j = 0; j < count && !*err; j++) {
        const char *l = lines[j];
        lineno = j + 1;
        if (!*l) continue;
        if (!have_head) {
            if (strcmp(l, MANIFEST_HEAD))
                *err = sdscatprintf(sdsempty(), "not a cairn-backup manifest (line 1)");
            have_head = 1;
            continue;
        }
        const char *sp = strchr(l, ' ');
        if (!sp) {
            *err = sdscatprintf(sdsempty(), "manifest line %d has no value", lineno);
            break;
        }
        sds key = sdsnewlen(l, (size_t)(sp - l));
        const char *v = sp + 1;
        int ok = 1;
        if (!strcmp(key, "id"))
            m->id = sdsnew(v);
        else if (!strcmp(key, "source"))
            m->source = sdsnew(v);
        else if (!strcmp(key, "replid"))
            ok = strlen(v) == 40 && memcpy(m->replid, v, 41);
        else if (!strcmp(key, "offset"))
            m->offset = strtoll(v, NULL, 10);
        else if (!strcmp(key, "time"))
            m->time = strtod(v, NULL);
        else if (!strcmp(key, "finished"))
            m->finished = strtod(v, NULL);
        else if (!strcmp(key, "rdb-version"))
            m->rdb_version = atoi(v);
        else if (!strcmp(key, "stream-db"))
            m->stream_db = atoi(v);
        else if (!strcmp(key, "encryption"))
            ok = !strncmp(v, "aes-256-gcm ", 12) && strlen(v + 12) == 16 &&
                 memcpy(m->enc_keyid, v + 12, 17);
        else if (!strcmp(key, "diverged-from")) {
            char id[128];
            ok = sscanf(v, "%127s %lld %lld", id, &m->diverged_at, &m->diverged_end) == 3 &&
                 !strchr(id, '/') && (m->diverged_from = sdsnew(id));
        } else if (!strcmp(key, "rdb-bytes"))
            m->rdb_bytes = strtoll(v, NULL, 10);
        else if (!strcmp(key, "rdb-sha256"))
            ok = repoHex(v, m->rdb_sha256);
        else if (!strcmp(key, "file"))
            ok = !strchr(v, '/') && (m->file = sdsnew(v));
        else if (!strcmp(key, "file-bytes"))
            m->file_bytes = strtoll(v, NULL, 10);
        else if (!strcmp(key, "file-sha256"))
            ok = repoHex(v, m->file_sha256);
        else if (!strcmp(key, "block")) {
            char hex[65];
            ok = atoi(v) == m->nblocks && strchr(v, ' ') && repoHex(strchr(v, ' ') + 1, hex);
            if (ok) {
                m->block_sha256 =
                    realloc(m->block_sha256, sizeof(*m->block_sha256) * (size_t)(m->nblocks + 1));
                memcpy(m->block_sha256[m->nblocks++], hex, 65);
            }
        } else if (!strcmp(key, "keys"))
            m->keys = strtoll(v, NULL, 10);
        else if (!strcmp(key, "expires"))
            m->expires = strtoll(v, NULL, 10);
        else if (!strcmp(key, "keys-db")) {
            int db = atoi(v);
            ok = db >= 0 && db < BACKUP_MAX_DBS && strchr(v, ' ');
            if (ok) m->keys_db[db] = strtoll(strchr(v, ' ') + 1, NULL, 10);
        } else if (!strcmp(key, "keys-type")) {
            ok = 0;
            for (int t = 0; t < BACKUP_TYPES; t++) {
                size_t n = strlen(backupTypeNames[t]);
                if (!strncmp(v, backupTypeNames[t], n) && v[n] == ' ') {
                    m->keys_type[t] = strtoll(v + n + 1, NULL, 10);
                    ok = 1;
                }
            }
        }
        /* Unknown keys are skipped: a newer tool may add some. */
        if (!ok) *err = sdscatprintf(sdsempty(), "manifest line %d (%s) is malformed", lineno, key);
        sdsfree(key);
    }
    sdsfreesplitres(lines, count);
    if (!*err && (!m->id || !m->file || !m->source || !m->replid[0] || !m->file_sha256[0] ||
                  !m->rdb_sha256[0]))
        *err = sdsnew("manifest incomplete (id, source, replid, file or a SHA-256 is missing)");
    if (*err) {
        manifestFree(m);
        return NULL;
    }
    return m;
}

sds repoReadFile(const char *path, sds *err) {
    FILE *fp = fopen(path, "r");
    if (!fp) {
        *err = sdscatprintf(sdsempty(), "cannot open: %s", strerror(errno));
        return NULL;
    }
    sds text = sdsempty();
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) text = sdscatlen(text, buf, n);
    fclose(fp);
    return text;
}

backupManifest *manifestRead(const char *path, sds *err) {
    sds text = repoReadFile(path, err);
    if (!text) return NULL;
    backupManifest *m = manifestParse(text, sdslen(text), err);
    sdsfree(text);
    return m;
}

void manifestFree(backupManifest *m) {
    if (!m) return;
    sdsfree(m->id);
    sdsfree(m->source);
    sdsfree(m->file);
    sdsfree(m->diverged_from);
    free(m->block_sha256);
    free(m);
}
