/* aof_manifest: parsing, formatting and atomically persisting the AOF
 * manifest (format and rules in aof_manifest.h).
 *
 * Text enters through aofManifestParse (from aofManifestLoad's file
 * contents) and leaves through aofManifestFormat / aofManifestPersist.
 * Nothing here knows about the server: aof.c decides when files are added,
 * retired and deleted. */
#include "aof_manifest.h"
#include "skip_fsync.h"
#include "zmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MANIFEST_MAX_LINE 1024

static aofInfo *aofInfoNew(const char *name, long long seq, char type) {
    aofInfo *ai = zmalloc(sizeof(*ai));
    ai->name = name ? sdsnew(name) : NULL;
    ai->seq = seq;
    ai->type = type;
    return ai;
}

static void aofInfoFree(aofInfo *ai) {
    if (!ai) return;
    sdsfree(ai->name);
    zfree(ai);
}

static aofInfo *aofInfoDup(const aofInfo *ai) { return aofInfoNew(ai->name, ai->seq, ai->type); }

static void listPush(aofInfo ***list, int *n, aofInfo *ai) {
    *list = zrealloc(*list, sizeof(aofInfo *) * (size_t)(*n + 1));
    (*list)[(*n)++] = ai;
}

/* The newest history entry comes first, as Redis 7.0 lists them (its
 * tests compare the manifest line by line). */
static void histPrepend(aofManifest *am, aofInfo *ai) {
    am->hist = zrealloc(am->hist, sizeof(aofInfo *) * (size_t)(am->nhist + 1));
    memmove(am->hist + 1, am->hist, sizeof(aofInfo *) * (size_t)am->nhist);
    am->hist[0] = ai;
    am->nhist++;
    ai->type = AOF_FILE_HIST;
}

aofManifest *aofManifestCreate(void) {
    aofManifest *am = zmalloc(sizeof(*am));
    memset(am, 0, sizeof(*am));
    return am;
}

void aofManifestFree(aofManifest *am) {
    if (!am) return;
    aofInfoFree(am->base);
    for (int j = 0; j < am->nincr; j++) aofInfoFree(am->incr[j]);
    for (int j = 0; j < am->nhist; j++) aofInfoFree(am->hist[j]);
    zfree(am->incr);
    zfree(am->hist);
    zfree(am);
}

aofManifest *aofManifestDup(const aofManifest *am) {
    aofManifest *d = aofManifestCreate();
    if (am->base) d->base = aofInfoDup(am->base);
    for (int j = 0; j < am->nincr; j++) listPush(&d->incr, &d->nincr, aofInfoDup(am->incr[j]));
    for (int j = 0; j < am->nhist; j++) listPush(&d->hist, &d->nhist, aofInfoDup(am->hist[j]));
    d->base_seq = am->base_seq;
    d->incr_seq = am->incr_seq;
    return d;
}

sds aofManifestFileName(const char *appendfilename) {
    return sdscatprintf(sdsempty(), "%s.manifest", appendfilename);
}

sds aofPath(const char *dir, const char *name) {
    return sdscatprintf(sdsempty(), "%s/%s", dir, name);
}

static int isBaseName(const char *s) { return strchr(s, '/') == NULL && strchr(s, '\\') == NULL; }

/* One line, already trimmed; returns NULL on success or the reason. */
static const char *parseLine(aofManifest *am, const char *line, long long *maxseq) {
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    /* At least file/seq/type pairs; more pairs are allowed for later versions. */
    if (argv == NULL || argc < 6 || (argc % 2)) {
        if (argv) sdsfreesplitres(argv, argc);
        return "Invalid AOF manifest file format";
    }
    aofInfo *ai = aofInfoNew(NULL, 0, 0);
    const char *why = NULL;
    for (int i = 0; i < argc && !why; i += 2) {
        if (!strcasecmp(argv[i], "file")) {
            sdsfree(ai->name);
            ai->name = sdsnew(argv[i + 1]);
            if (!isBaseName(ai->name)) why = "File can't be a path, just a filename";
        } else if (!strcasecmp(argv[i], "seq")) {
            ai->seq = atoll(argv[i + 1]);
        } else if (!strcasecmp(argv[i], "type")) {
            ai->type = argv[i + 1][0];
        }
    }
    sdsfreesplitres(argv, argc);
    /* An empty name could not be written back: it would not parse again. */
    if (!why && (!ai->name || !sdslen(ai->name) || !ai->seq || !ai->type))
        why = "Invalid AOF manifest file format";
    if (!why) {
        if (ai->type == AOF_FILE_BASE) {
            if (am->base) why = "Found duplicate base file information";
            else {
                am->base = ai;
                am->base_seq = ai->seq;
                return NULL;
            }
        } else if (ai->type == AOF_FILE_HIST) {
            listPush(&am->hist, &am->nhist, ai);
            return NULL;
        } else if (ai->type == AOF_FILE_INCR) {
            if (ai->seq <= *maxseq) {
                why = "Found a non-monotonic sequence number";
            } else {
                listPush(&am->incr, &am->nincr, ai);
                am->incr_seq = *maxseq = ai->seq;
                return NULL;
            }
        } else {
            why = "Unknown AOF file type";
        }
    }
    aofInfoFree(ai);
    return why;
}

aofManifest *aofManifestParse(const char *text, size_t len, sds *err, int *line) {
    aofManifest *am = aofManifestCreate();
    long long maxseq = 0;
    int linenum = 0;
    size_t pos = 0;
    *line = 0;
    if (len == 0) {
        *err = sdsnew("Found an empty AOF manifest");
        goto fail;
    }
    while (pos < len) {
        const char *start = text + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t llen = nl ? (size_t)(nl - start) : len - pos;
        linenum++;
        pos += llen + (nl ? 1 : 0);
        if (start[0] == '#') continue;
        if (!nl || llen >= MANIFEST_MAX_LINE) {
            /* As in Redis, every line ends in a newline within 1024 bytes
             * (a last line without one counts as too long). */
            *err = sdsnew("The AOF manifest file contains too long line");
            *line = linenum;
            goto fail;
        }
        sds l = sdstrim(sdsnewlen(start, llen), " \t\r\n");
        const char *why = sdslen(l) ? parseLine(am, l, &maxseq) : "Invalid AOF manifest file format";
        sdsfree(l);
        if (why) {
            *err = sdsnew(why);
            *line = linenum;
            goto fail;
        }
    }
    return am;
fail:
    aofManifestFree(am);
    return NULL;
}

aofManifest *aofManifestLoad(const char *path, sds *err, int *line) {
    *line = 0;
    FILE *fp = fopen(path, "r");
    if (!fp) {
        *err = sdscatprintf(sdsempty(), "Can't open the AOF manifest file %s for reading: %s", path,
                            strerror(errno));
        return NULL;
    }
    sds text = sdsempty();
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) text = sdscatlen(text, buf, n);
    int rerr = ferror(fp);
    fclose(fp);
    if (rerr) {
        sdsfree(text);
        *err = sdsnew("Read AOF manifest failed");
        return NULL;
    }
    aofManifest *am = aofManifestParse(text, sdslen(text), err, line);
    sdsfree(text);
    return am;
}

static sds formatInfo(sds s, const aofInfo *ai) {
    int quote = 0;
    for (size_t j = 0; j < sdslen(ai->name); j++) {
        unsigned char ch = (unsigned char)ai->name[j];
        if (ch <= ' ' || ch >= 127 || ch == '"' || ch == '\'' || ch == '\\') quote = 1;
    }
    s = sdscat(s, "file ");
    s = quote ? sdscatrepr(s, ai->name, sdslen(ai->name)) : sdscatsds(s, ai->name);
    return sdscatprintf(s, " seq %lld type %c\n", ai->seq, ai->type);
}

sds aofManifestFormat(const aofManifest *am) {
    sds s = sdsempty();
    if (am->base) s = formatInfo(s, am->base);
    for (int j = 0; j < am->nhist; j++) s = formatInfo(s, am->hist[j]);
    for (int j = 0; j < am->nincr; j++) s = formatInfo(s, am->incr[j]);
    return s;
}

int aofFsyncDir(const char *dir) {
    if (skipFsync("dir")) return 0;
    int fd = open(dir, O_RDONLY);
    if (fd == -1) return -1;
    int ret = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return ret;
}

int aofManifestPersist(const aofManifest *am, const char *dir, const char *appendfilename,
                       sds *err) {
    sds name = aofManifestFileName(appendfilename);
    sds tmpname = sdscatprintf(sdsempty(), "temp-%s", name);
    sds path = aofPath(dir, name), tmppath = aofPath(dir, tmpname);
    sds text = aofManifestFormat(am);
    int ret = -1;
    const char *step = "opening";
    int fd = open(tmppath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) goto done;
    step = "writing";
    size_t off = 0;
    while (off < sdslen(text)) {
        ssize_t n = write(fd, text + off, sdslen(text) - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) goto done;
        off += (size_t)n;
    }
    step = "fsyncing";
    if (fsync(fd) == -1) goto done;
    close(fd);
    fd = -1;
    step = "renaming";
    if (rename(tmppath, path) == -1) goto done;
    step = "fsyncing the directory of";
    if (aofFsyncDir(dir) == -1) goto done;
    ret = 0;
done:
    if (ret == -1) {
        *err = sdscatprintf(sdsempty(), "Error %s the AOF manifest file %s: %s", step, tmppath,
                            strerror(errno));
        if (fd != -1) close(fd);
        unlink(tmppath);
    }
    sdsfree(name);
    sdsfree(tmpname);
    sdsfree(path);
    sdsfree(tmppath);
    sdsfree(text);
    return ret;
}

const char *aofManifestNewBase(aofManifest *am, const char *appendfilename, int rdb) {
    if (am->base) histPrepend(am, am->base);
    am->base_seq++;
    sds name = sdscatprintf(sdsempty(), "%s.%lld.base.%s", appendfilename, am->base_seq,
                            rdb ? "rdb" : "aof");
    am->base = aofInfoNew(name, am->base_seq, AOF_FILE_BASE);
    sdsfree(name);
    return am->base->name;
}

const char *aofManifestNewIncr(aofManifest *am, const char *appendfilename) {
    am->incr_seq++;
    sds name = sdscatprintf(sdsempty(), "%s.%lld.incr.aof", appendfilename, am->incr_seq);
    aofInfo *ai = aofInfoNew(name, am->incr_seq, AOF_FILE_INCR);
    sdsfree(name);
    listPush(&am->incr, &am->nincr, ai);
    return ai->name;
}

void aofManifestIncrToHistory(aofManifest *am, int keep) {
    int move = am->nincr - keep;
    if (move <= 0) return;
    for (int j = 0; j < move; j++) histPrepend(am, am->incr[j]);
    memmove(am->incr, am->incr + move, sizeof(aofInfo *) * (size_t)keep);
    am->nincr = keep;
}

void aofManifestSetBase(aofManifest *am, const char *name, long long seq) {
    aofInfoFree(am->base);
    am->base = aofInfoNew(name, seq, AOF_FILE_BASE);
    if (seq > am->base_seq) am->base_seq = seq;
}

void aofManifestClearHistory(aofManifest *am) {
    for (int j = 0; j < am->nhist; j++) aofInfoFree(am->hist[j]);
    zfree(am->hist);
    am->hist = NULL;
    am->nhist = 0;
}
