/* fuzz_aof.c -- libFuzzer target for the AOF loader (persistence/aof_load.c)
 * and the AOF manifest parser (persistence/aof_manifest.c).
 *
 * Input: one mode byte, then the bytes.
 *   mode & 1   the bytes are manifest text, parsed by aofManifestParse. A
 *              manifest that parses must format (aofManifestFormat) into
 *              text that parses into the same files, seqs and types, and
 *              formats into the very same text again (a manifest of
 *              comments only formats to nothing, which does not parse).
 *   otherwise  the bytes are one AOF file, written to a scratch file and
 *              walked by aofCheckFile (nothing runs; an RDB preamble is
 *              decoded in check-only mode). Then, with mode & 2, it is
 *              loaded for real by aofLoadFile (as the last file, with
 *              aof-load-truncated as mode & 4 says) into an empty keyspace,
 *              which is emptied again afterwards. Commands that reach
 *              outside the keyspace (DEBUG, SHUTDOWN, SAVE, CONFIG, ...)
 *              are removed from the command table first.
 *
 * Invariants (a violation traps after a line on stderr):
 *   - check: OK means the whole file is valid; TRUNCATED a valid prefix
 *     shorter than the file; FAILED comes with an error text; the valid
 *     prefix of a TRUNCATED file checks OK on its own.
 *   - check with --truncate-to-timestamp T (1 + mode >> 3): a cut is at
 *     most where the plain walk stopped, comes with OK and is where the file
 *     is valid up to; without a cut the result is the plain walk's.
 *   - load: the result class is the check's, except that a command the
 *     load runs may fail it (check_only never runs one); a TRUNCATED load
 *     leaves exactly the valid prefix in the file, and that file then
 *     loads OK.
 * The scratch file lives in /dev/shm (else $TMPDIR or /tmp), one per
 * process, and is removed at exit. */
#define FUZZ_WITH_SERVER
#include "fuzz_common.h"
#include "aof_load.h"
#include "aof_manifest.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "object.h"
#include "rdb.h"
#include "sds.h"
#include "server_state.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK FUZZ_CHECK

static char scratch[256];

static void removeScratch(void) {
    unlink(scratch);
}

static void ignoreAux(void *ctx, size_t offset, sds field, sds value) {
    (void)ctx, (void)offset, (void)field, (void)value;
}
static void ignoreKey(void *ctx, size_t offset, int dbid, int rdbtype, sds key, robj *val,
                      long long expire) {
    (void)ctx, (void)offset, (void)dbid, (void)rdbtype, (void)key, (void)val, (void)expire;
}
static const rdbLoadObserver checkObserver = {.aux = ignoreAux, .key = ignoreKey, .check_only = 1};

/* Commands that touch files, processes, sockets, the configuration or
 * other clients: not what an AOF is fuzzed for, and harmful in a fuzzer. */
static const char *denied[] = {
    "debug",      "shutdown",   "save",       "bgsave",      "bgrewriteaof", "config",
    "replicaof",  "slaveof",    "sync",       "psync",       "replconf",     "monitor",
    "failover",   "client",     "wait",       "waitaof",     "migrate",      "module",
    "subscribe",  "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe",
    "reset",      "quit",       "acl",        "eval",        "evalsha",      "eval_ro",
    "evalsha_ro", "script",     "function",   "fcall",       "fcall_ro",     "latency",
    "slowlog",    "lastsave",   "cluster",    "readonly",    "readwrite",    "asking",
    "hello",      "auth",       "sentinel",   "flushall",    "swapdb",       NULL};

static void fuzzInit(void) {
    static int done;
    if (done) return;
    done = 1;
    fuzzServerInit();
    server.loading = 1;
    for (int j = 0; denied[j]; j++) {
        cairnCommand *cmd = commandLookupByName(denied[j]);
        if (cmd) cmd->proc = NULL; /* the loader calls it an unknown command */
    }
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                      : getenv("TMPDIR")            ? getenv("TMPDIR")
                                                    : "/tmp";
    snprintf(scratch, sizeof(scratch), "%s/fuzz-aof-%d.aof", dir, (int)getpid());
    atexit(removeScratch);
}

static void writeScratch(const char *p, size_t len) {
    FILE *f = fopen(scratch, "wb");
    CHECK(f != NULL, "cannot create the scratch file");
    CHECK(len == 0 || fwrite(p, len, 1, f) == 1, "cannot write the scratch file");
    CHECK(fclose(f) == 0, "cannot write the scratch file");
}

static long long scratchSize(void) {
    struct stat st;
    CHECK(stat(scratch, &st) == 0, "the scratch file vanished");
    return (long long)st.st_size;
}

static int sameInfo(const aofInfo *a, const aofInfo *b) {
    if (!a || !b) return a == b;
    return a->seq == b->seq && a->type == b->type && sdslen(a->name) == sdslen(b->name) &&
           !memcmp(a->name, b->name, sdslen(a->name));
}

static void fuzzManifest(const char *p, size_t len) {
    sds err = NULL;
    int line;
    aofManifest *am = aofManifestParse(p, len, &err, &line);
    if (!am) {
        CHECK(err != NULL, "a refused manifest has no error");
        CHECK(line >= 0, "negative error line");
        sdsfree(err);
        return;
    }
    CHECK(err == NULL, "an accepted manifest has an error");
    for (int j = 1; j < am->nincr; j++)
        CHECK(am->incr[j]->seq > am->incr[j - 1]->seq, "incremental seqs not increasing");
    sds text = aofManifestFormat(am);
    if (!am->base && !am->nincr && !am->nhist) {
        /* Only comments: accepted as in Redis, and nothing to format (an
         * empty text is refused, so this one does not round-trip). */
        CHECK(sdslen(text) == 0, "an empty manifest formats to text");
        sdsfree(text);
        aofManifestFree(am);
        return;
    }
    /* Quoting can make a line that fit into one over the 1024-byte limit
     * (a name of 300 bytes >= 0x7f is 1200 quoted): Redis' format and limit
     * both, so such a manifest is not expected to round-trip. */
    for (const char *l = text, *nl; (nl = strchr(l, '\n')); l = nl + 1) {
        if (nl - l >= 1023) {
            sdsfree(text);
            aofManifestFree(am);
            return;
        }
    }
    aofManifest *again = aofManifestParse(text, sdslen(text), &err, &line);
    if (!again) fprintf(stderr, "fuzz_aof: %s (line %d) in:\n%s", err, line, text);
    CHECK(again != NULL, "a formatted manifest does not parse");
    CHECK(sameInfo(am->base, again->base), "base changed by format + parse");
    CHECK(am->nincr == again->nincr && am->nhist == again->nhist, "file count changed");
    for (int j = 0; j < am->nincr; j++)
        CHECK(sameInfo(am->incr[j], again->incr[j]), "incr changed");
    for (int j = 0; j < am->nhist; j++)
        CHECK(sameInfo(am->hist[j], again->hist[j]), "hist changed");
    sds text2 = aofManifestFormat(again);
    CHECK(sdslen(text) == sdslen(text2) && !memcmp(text, text2, sdslen(text)), "format not stable");
    sdsfree(text);
    sdsfree(text2);
    aofManifestFree(again);
    aofManifestFree(am);
}

static int check(long long size, long long *valid) {
    long long cmds = 0, cut;
    char *err = NULL;
    /* A check walk loads an RDB preamble's keys: the next walk of the same
     * file must not find them as duplicates. */
    dbEmpty(-1, 0);
    rdbLoadSetObserver(&checkObserver);
    int ret = aofCheckFile(scratch, "fuzz.aof", 0, valid, &cut, &cmds, &err);
    rdbLoadSetObserver(NULL);
    CHECK(cut == -1, "a timestamp cut without --truncate-to-timestamp");
    CHECK(*valid >= 0 && *valid <= size, "valid prefix outside the file");
    switch (ret) {
        case AOF_LOAD_OK:
            CHECK(*valid == size, "OK but not all of the file is valid");
            break;
        case AOF_LOAD_EMPTY:
            CHECK(size == 0, "EMPTY for a non-empty file");
            break;
        case AOF_LOAD_TRUNCATED:
            CHECK(*valid < size, "TRUNCATED but the whole file is valid");
            break;
        case AOF_LOAD_FAILED:
            CHECK(err != NULL, "FAILED without a reason");
            break;
        default:
            CHECK(0, "unknown result");
    }
    sdsfree((sds)err);
    return ret;
}

/* --truncate-to-timestamp T (T from the mode byte): the walk stops at the
 * first annotation later than T, which is then where the file is good up
 * to; without one it is the plain walk. */
static void checkTimestamp(long long size, long long to_ts, int plain_ret, long long plain_valid) {
    long long cmds = 0, valid, cut;
    char *err = NULL;
    /* The same observer as the plain walk's: without it an RDB preamble's
     * keys go into the keyspace, where a duplicate key fails the walk. */
    dbEmpty(-1, 0);
    rdbLoadSetObserver(&checkObserver);
    int ret = aofCheckFile(scratch, "fuzz.aof", to_ts, &valid, &cut, &cmds, &err);
    rdbLoadSetObserver(NULL);
    sdsfree((sds)err);
    CHECK(cut >= -1 && cut <= size, "timestamp cut outside the file");
    if (cut >= 0) {
        CHECK(ret == AOF_LOAD_OK, "a timestamp cut but not OK");
        CHECK(valid == cut, "a timestamp cut not where the file is valid up to");
        CHECK(cut <= plain_valid, "a timestamp cut past where the plain walk stopped");
    } else {
        CHECK(ret == plain_ret && valid == plain_valid, "a timestamp walk without a cut differs");
    }
}

static void fuzzAof(const char *p, size_t len, int mode) {
    writeScratch(p, len);
    long long valid;
    int ret = check((long long)len, &valid);
    checkTimestamp((long long)len, 1 + (mode >> 3), ret, valid);
    if (ret == AOF_LOAD_TRUNCATED) {
        /* The prefix the checker called valid is a good file by itself. */
        long long valid2;
        writeScratch(p, (size_t)valid);
        int r2 = check(valid, &valid2);
        CHECK(r2 == AOF_LOAD_OK || (valid == 0 && r2 == AOF_LOAD_EMPTY),
              "the valid prefix does not check OK");
        writeScratch(p, len);
    }
    if (!(mode & 2)) return;

    cfg.aof_load_truncated = (mode & 4) != 0;
    dbEmpty(-1, 0);
    long long cmds = 0;
    char *err = NULL;
    int lret = aofLoadFile(scratch, "fuzz.aof", 1, &cmds, &err);
    sdsfree((sds)err);
    if (ret == AOF_LOAD_FAILED) CHECK(lret == AOF_LOAD_FAILED, "check FAILED, load did not");
    if (lret == AOF_LOAD_OK) CHECK(ret == AOF_LOAD_OK, "load OK, check did not");
    if (lret == AOF_LOAD_TRUNCATED) {
        CHECK(ret == AOF_LOAD_TRUNCATED, "load TRUNCATED, check did not");
        CHECK(scratchSize() == valid, "the truncated file is not the valid prefix");
        dbEmpty(-1, 0);
        int r2 = aofLoadFile(scratch, "fuzz.aof", 1, &cmds, &err);
        sdsfree((sds)err);
        CHECK(r2 == AOF_LOAD_OK || (valid == 0 && r2 == AOF_LOAD_EMPTY),
              "the truncated file does not load");
    }
    dbEmpty(-1, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInit();
    if (size < 1) return 0;
    const char *p = (const char *)data + 1;
    size_t len = size - 1;
    if (data[0] & 1)
        fuzzManifest(p, len);
    else
        fuzzAof(p, len, data[0]);
    return 0;
}
