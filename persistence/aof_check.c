/* aof_check: cairn-check-aof, the AOF checker, as a mode of the server
 * binary (`cairn-server --check-aof [--fix] PATH`, or the binary run under
 * the name cairn-check-aof; utils/cairn-check-aof wraps it).
 *
 * PATH is a manifest (every file it lists is checked in order) or one AOF
 * file (a Redis 6 single file, a base or an incremental file). Files enter
 * through aofCheckFile (aof_load.c's parser, with nothing executed); the
 * verdict leaves on stdout and as the exit status: 0 valid (or fixed), 1
 * not valid, 2 usage or I/O error. --fix truncates the last file at the
 * end of its last complete command (a cut tail or, as redis-check-aof
 * --fix does, damage inside it); damage in an earlier file cannot be fixed
 * that way and is only reported. --truncate-to-timestamp T cuts the last
 * file at its first "#TS:" annotation later than T (point-in-time
 * recovery; every incremental file starts with one, so the time of each
 * file's first write is known); a later annotation in an earlier file is
 * reported, not cut. */
#include "commands.h"
#include "config.h"
#include "db.h"
#include "object.h"
#include "sds.h"
#include "aof_check.h"
#include "aof_load.h"
#include "aof_manifest.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --truncate-to-timestamp: the file holds writes later than to_ts from
 * offset cut on. Only the last file may be cut (later files depend on the
 * earlier ones); an incremental file may become empty (may_empty: its
 * #TS: first line says all of it came later), a whole AOF may not. */
static int truncateToTimestamp(const char *path, const char *name, int is_last, int may_empty,
                               long long to_ts, long long cut, long long size) {
    if (cut == 0 && !may_empty) {
        printf("AOF %s has nothing before timestamp %lld, aborting...\n", name, to_ts);
        return 1;
    }
    if (!is_last) {
        printf(
            "Failed to truncate AOF %s to timestamp %lld to offset %lld because it is not the last "
            "file. Later files depend on it: remove them and their manifest lines first.\n",
            name, to_ts, cut);
        return 1;
    }
    if (truncate(path, (off_t)cut) == -1) {
        printf("Failed to truncate AOF %s to timestamp %lld: %s\n", name, to_ts, strerror(errno));
        return 2;
    }
    printf("Successfully truncated AOF %s to timestamp %lld (from %lld to %lld bytes)\n", name,
           to_ts, size, cut);
    return 0;
}

static int checkOne(const char *path, const char *name, int is_last, int fix, long long to_ts,
                    int may_empty) {
    long long valid = 0, cmds = 0, cut = -1;
    char *err = NULL;
    struct stat st;
    long long size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
    int ret = aofCheckFile(path, name, to_ts, &valid, &cut, &cmds, &err);
    if (ret == AOF_LOAD_NOT_EXIST) {
        printf("%s: doesn't exist\n", name);
        return 1;
    }
    if ((ret == AOF_LOAD_OK || ret == AOF_LOAD_EMPTY) && cut >= 0)
        return truncateToTimestamp(path, name, is_last, may_empty, to_ts, cut, size);
    if (ret == AOF_LOAD_OK || ret == AOF_LOAD_EMPTY) {
        printf("%s: valid (%lld bytes, %lld commands or keys)\n", name, size, cmds);
        return 0;
    }
    printf("AOF analyzed: filename=%s, size=%lld, ok_up_to=%lld, diff=%lld\n", name, size, valid,
           size - valid);
    if (ret == AOF_LOAD_TRUNCATED) printf("%s: the last command is cut in the middle\n", name);
    else printf("%s: %s\n", name, err ? err : "not valid");
    sdsfree((sds)err);
    if (valid == 0 && ret == AOF_LOAD_FAILED && size > 0) {
        /* Nothing to keep (a bad RDB preamble, or damage at the start). */
        printf("%s is not valid and cannot be fixed by truncation\n", name);
        return 1;
    }
    if (!fix) {
        printf("%s is not valid. Use the --fix option to try fixing it.\n", name);
        return 1;
    }
    if (!is_last) {
        printf("%s is not the last file of the AOF: truncating it would drop writes that later files "
               "depend on; not fixed\n",
               name);
        return 1;
    }
    if (truncate(path, (off_t)valid) == -1) {
        printf("Failed to truncate %s: %s\n", name, strerror(errno));
        return 2;
    }
    printf("Successfully truncated %s from %lld to %lld bytes (%lld bytes dropped)\n", name, size,
           valid, size - valid);
    return 0;
}

int aofCheckMain(int argc, char **argv) {
    int fix = 0, usage = 0;
    long long to_ts = 0;
    const char *path = NULL;
    for (int j = 1; j < argc && !usage; j++) {
        if (!strcmp(argv[j], "--fix")) {
            fix = 1;
        } else if (!strcmp(argv[j], "--truncate-to-timestamp") && j + 1 < argc) {
            char *end;
            errno = 0;
            to_ts = strtoll(argv[++j], &end, 10);
            if (errno || *end || end == argv[j] || to_ts <= 0) {
                fprintf(stderr, "Invalid timestamp %s, aborting...\n", argv[j]);
                return 2;
            }
        } else if (!path) {
            path = argv[j];
        } else {
            usage = 1;
        }
    }
    if (!path || usage) {
        fprintf(stderr, "Usage: cairn-check-aof [--fix] [--truncate-to-timestamp <unix seconds>] "
                        "<file.manifest|file.aof>\n");
        return 2;
    }
    configInitDefaults();
    cfg.verbosity = LL_WARNING; /* the loader's notices are not the report */
    objectCreateShared();
    commandsInit();
    dbInit();
    size_t plen = strlen(path);
    int bad = 0;
    if (plen > 9 && !strcmp(path + plen - 9, ".manifest")) {
        sds err = NULL;
        int line = 0;
        aofManifest *am = aofManifestLoad(path, &err, &line);
        if (!am) {
            printf("Invalid manifest %s%s%d: %s\n", path, line ? " at line " : "", line, err);
            sdsfree(err);
            return 1;
        }
        char *copy = strdup(path);
        const char *dir = dirname(copy);
        int total = (am->base ? 1 : 0) + am->nincr, k = 0;
        printf("Checking the AOF manifest %s: %d file(s)\n", path, total);
        for (int j = -1; j < am->nincr && bad < 2; j++) {
            aofInfo *ai = j < 0 ? am->base : am->incr[j];
            if (!ai) continue;
            sds p = aofPath(dir, ai->name);
            int r = checkOne(p, ai->name, ++k == total, fix, to_ts, j >= 0);
            sdsfree(p);
            if (r > bad) bad = r;
            if (r && !fix) break;
        }
        free(copy);
        aofManifestFree(am);
        if (!bad) printf("All AOF files and the manifest are valid\n");
    } else {
        bad = checkOne(path, path, 1, fix, to_ts, 0);
    }
    return bad;
}
