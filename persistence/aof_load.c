/* aof_load: replaying one append-only file into the keyspace.
 *
 * Bytes enter from a file: an optional RDB preamble (the file starts with
 * "REDIS"; loaded by rdbLoadRio), then RESP multibulk commands, with '#'
 * annotation lines (Redis' timestamps) skipped. Each command leaves
 * through a fake client (no connection): its command's proc runs directly,
 * as in Redis, so nothing is counted in the command statistics, nothing
 * reaches MONITOR, and propagation is off while server.loading is set.
 * MULTI/EXEC only delimit transactions here: a file that ends inside one is
 * cut back to before its MULTI, like a command cut in the middle.
 *
 * At start-up (aofLoadServeClients) clients are answered every 1024
 * commands and between the keys of a preamble (processEventsWhileBlocked:
 * -LOADING for most commands).
 *
 * A cut tail in the last file with aof-load-truncated yes is removed from
 * the file (truncate(2)) with a log line; any other damage fails the load
 * with the file, the byte offset and the reason. The pad a crash left at
 * the end of the last file (aof_prealloc.c) is cut off too, and damage
 * close to the end of a file that ends in pad is a torn write: cut like a
 * cut tail.
 *
 * Includes client.h and commands.h: it drives the command core with a
 * fake client. */
#include "client.h"
#include "commands.h"
#include "config.h"
#include "log.h"
#include "multi.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"
#include "aof_load.h"
#include "aof_prealloc.h"
#include "rdb.h"
#include "rio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define AOF_LINE_MAX 128

static sds loadError(const char *name, long long off, const char *why) {
    return sdscatprintf(sdsempty(),
                        "Bad file format reading the append only file %s at offset %lld: %s. Make a "
                        "backup of your AOF file, then use cairn-check-aof --fix <filename>",
                        name, off, why);
}

/* Read one "\r\n"-terminated header line into buf. 1 on success, 0 at a
 * clean end of file (nothing read), -1 at a cut line, -2 for a line too
 * long to be a header. */
static int readLine(FILE *fp, char *buf, size_t size) {
    if (fgets(buf, (int)size, fp) == NULL) return 0;
    size_t l = strlen(buf);
    if (l == 0 || buf[l - 1] != '\n') return feof(fp) ? -1 : -2;
    return 1;
}

static int parseHeader(const char *buf, char prefix, long long *v) {
    if (buf[0] != prefix) return 0;
    char *end;
    errno = 0;
    long long n = strtoll(buf + 1, &end, 10);
    if (errno || end == buf + 1 || (*end != '\r' && *end != '\n')) return 0;
    *v = n;
    return 1;
}

static void fakeClientReset(client *c) {
    clientFreeArgv(c);
    c->bufpos = 0;
    c->sentlen = 0;
    replyFreeBlocks(c);
}

/* Commands between MULTI and EXEC wait here and run at EXEC, so a file
 * cut inside a transaction leaves none of it applied. */
typedef struct multiQueue {
    robj ***argv;
    int *argc;
    int len, cap;
} multiQueue;

static void queueFree(multiQueue *q) {
    for (int j = 0; j < q->len; j++) {
        for (int k = 0; k < q->argc[j]; k++) decrRefCount(q->argv[j][k]);
        zfree(q->argv[j]);
    }
    q->len = 0;
}

/* cairn-check-aof: parse and validate only (aofCheckFile). With
 * check_to_ts the walk stops at the first "#TS:" annotation later than it
 * and check_ts_cut is that line's offset (-1: none). */
static int check_only;
static long long check_valid;
static long long check_to_ts, check_ts_cut;
/* Start-up: answer clients (-LOADING) every 1024 commands and between the
 * keys of an RDB preamble, as Redis does while it loads the AOF. */
static int serve_clients;

void aofLoadServeClients(int on) { serve_clients = on; }

static void aofLoadRdbProgress(size_t loaded, const rdbLoadStats *st) {
    (void)loaded;
    (void)st;
    processEventsWhileBlocked();
}

static void runOne(client *c, cairnCommand *cmd) {
    if (!check_only) commandRunProc(c, cmd);
}

/* Run (or queue) the command in c->argv, which this takes over; returns
 * NULL or why it could not run. */
static const char *aofExecute(client *c, int *in_multi, multiQueue *q) {
    cairnCommand *cmd = commandLookup(c->argv, c->argc);
    if (!cmd || !cmd->proc) return "unknown command";
    if ((cmd->arity > 0 && cmd->arity != c->argc) || c->argc < -cmd->arity)
        return "wrong number of arguments";
    if (cmd->proc == multiCommand) {
        if (*in_multi) return "nested MULTI";
        *in_multi = 1;
        return NULL;
    }
    if (cmd->proc == execCommand) {
        if (!*in_multi) return "EXEC without MULTI";
        *in_multi = 0;
        robj **own = c->argv;
        int own_argc = c->argc;
        for (int j = 0; j < q->len; j++) {
            c->argv = q->argv[j];
            c->argc = c->argv_len = q->argc[j];
            runOne(c, commandLookup(c->argv, c->argc));
            c->bufpos = 0;
            replyFreeBlocks(c);
            clientFreeOriginalArgv(c);
            for (int k = 0; k < c->argc; k++) decrRefCount(c->argv[k]);
            zfree(c->argv);
        }
        q->len = 0;
        c->argv = own;
        c->argc = c->argv_len = own_argc;
        return NULL;
    }
    if (*in_multi) {
        if (q->len == q->cap) {
            q->cap = q->cap ? q->cap * 2 : 16;
            q->argv = zrealloc(q->argv, sizeof(robj **) * (size_t)q->cap);
            q->argc = zrealloc(q->argc, sizeof(int) * (size_t)q->cap);
        }
        q->argv[q->len] = c->argv;
        q->argc[q->len++] = c->argc;
        c->argv = NULL;
        c->argc = c->argv_len = 0;
        return NULL;
    }
    runOne(c, cmd);
    return NULL;
}

int aofLoadFile(const char *path, const char *name, int is_last, long long *cmds, char **errp) {
    sds *err = (sds *)errp;
    struct stat st;
    *cmds = 0;
    if (stat(path, &st) == -1) {
        if (errno == ENOENT) return AOF_LOAD_NOT_EXIST;
        *err = sdscatprintf(sdsempty(), "Can't stat the append only file %s: %s", name, strerror(errno));
        return AOF_LOAD_FAILED;
    }
    if (st.st_size == 0) return AOF_LOAD_EMPTY;
    FILE *fp = fopen(path, "r");
    if (!fp) {
        *err = sdscatprintf(sdsempty(), "Can't open the append only file %s for reading: %s", name,
                            strerror(errno));
        return AOF_LOAD_FAILED;
    }
    int ret = AOF_LOAD_OK;
    char sig[5];
    if (fread(sig, 1, 5, fp) == 5 && memcmp(sig, "REDIS", 5) == 0) {
        rewind(fp);
        rio r;
        rioInitWithFile(&r, fp);
        rdbLoadStats rst;
        sds why = NULL;
        serverLog(LL_NOTICE, "Reading RDB base file on AOF loading...");
        if (serve_clients && !check_only) rdbLoadSetProgress(aofLoadRdbProgress);
        int rret = rdbLoadRio(&r, 0, &rst, &why);
        rdbLoadSetProgress(NULL);
        if (rret != 0) {
            *err = sdscatprintf(sdsempty(), "Error reading the RDB base file %s, AOF loading aborted: %s",
                                name, why ? why : "unknown error");
            sdsfree(why);
            fclose(fp);
            return AOF_LOAD_FAILED;
        }
        *cmds += rst.keys_loaded;
        serverLog(LL_NOTICE, "Reading the remaining AOF tail...");
    } else {
        rewind(fp);
    }

    client *c = clientCreate(NULL, CLIENT_FAKE | CLIENT_AUTHENTICATED | CLIENT_DENY_BLOCKING);
    int in_multi = 0;
    multiQueue q = {NULL, NULL, 0, 0};
    long long valid_up_to = ftello(fp), valid_before_multi = valid_up_to;
    char buf[AOF_LINE_MAX];
    const char *why = NULL;
    int cut = 0;
    /* The run of pad lines the walk is in (aof_prealloc.c), -1: none. A
     * file that ends in one is cut back to its start; a command after one
     * means a torn write (see below). */
    long long pad_from = -1;
    int padded = is_last && aofPadTail(fileno(fp), st.st_size);
    for (;;) {
        long long start = ftello(fp);
        if (!in_multi) valid_before_multi = start;
        valid_up_to = start;
        int rl = readLine(fp, buf, sizeof(buf));
        if (rl == 0) {
            if (ferror(fp)) {
                why = "read error";
                break;
            }
            if (in_multi) cut = 1; /* a transaction without its EXEC */
            break;
        }
        if (rl == -1) {
            cut = 1;
            break;
        }
        if (buf[0] == '#') {
            if (rl == 1 && aofPadLine(buf, strlen(buf))) {
                if (pad_from < 0) pad_from = start;
                continue;
            }
            pad_from = -1;
            if (check_only && check_to_ts && !in_multi && rl > 0 && !strncmp(buf, "#TS:", 4) &&
                strtoll(buf + 4, NULL, 10) > check_to_ts) {
                check_ts_cut = start;
                break;
            }
            /* An annotation: skip the rest of a long line too. */
            while (rl == -2 && (rl = readLine(fp, buf, sizeof(buf))) == -2) {
            }
            if (rl == -1) {
                cut = 1;
                break;
            }
            continue;
        }
        if (pad_from >= 0 && padded && aofPadTorn(fileno(fp), st.st_size, (off_t)pad_from)) {
            /* Pad, then a command, then only pad: a block of the last
             * write reached the disk but an earlier one did not. (Pad
             * followed by more data is a crash's pad that a later writer,
             * Redis say, appended after: annotations.) */
            why = "a command after the preallocated pad";
            valid_up_to = pad_from;
            break;
        }
        pad_from = -1;
        long long argc;
        if (rl == -2 || !parseHeader(buf, '*', &argc) || argc < 1 || argc > INT_MAX / 2) {
            why = "expected a multibulk header ('*<count>')";
            break;
        }
        /* argv grows as arguments arrive: a corrupt count must not size an
         * allocation (each argument takes at least 6 bytes of the file). */
        int cap = argc < 16 ? (int)argc : 16;
        robj **argv = zmalloc(sizeof(robj *) * (size_t)cap);
        int got = 0;
        for (; got < argc; got++) {
            long long len;
            if (got == cap) {
                cap *= 2;
                if (cap > argc) cap = (int)argc;
                argv = zrealloc(argv, sizeof(robj *) * (size_t)cap);
            }
            rl = readLine(fp, buf, sizeof(buf));
            if (rl <= 0) {
                if (ferror(fp)) why = "read error";
                else cut = 1;
                break;
            }
            if (rl == -2 || !parseHeader(buf, '$', &len) || len < 0) {
                why = "expected a bulk header ('$<length>')";
                break;
            }
            /* A length past the end of the file is a cut argument, found
             * without allocating what a corrupt header claims. */
            if (len > (long long)st.st_size - ftello(fp)) {
                cut = 1;
                break;
            }
            sds arg = sdsnewlen(NULL, (size_t)len);
            char crlf[2];
            if ((len && fread(arg, (size_t)len, 1, fp) != 1) || fread(crlf, 2, 1, fp) != 1) {
                sdsfree(arg);
                if (ferror(fp)) why = "read error";
                else cut = 1;
                break;
            }
            if (crlf[0] != '\r' || crlf[1] != '\n') {
                sdsfree(arg);
                why = "a bulk argument is not followed by CRLF";
                break;
            }
            argv[got] = createObject(OBJ_STRING, arg);
        }
        if (why || cut) {
            for (int j = 0; j < got; j++) decrRefCount(argv[j]);
            zfree(argv);
            break;
        }
        c->argv = argv;
        c->argc = c->argv_len = (int)argc;
        why = aofExecute(c, &in_multi, &q);
        if (why && !strcmp(why, "unknown command")) {
            /* Redis' words first: operators grep for them. */
            *err = sdscatprintf(sdsempty(),
                                "Unknown command '%.64s' reading the append only file %s at offset %lld. "
                                "Make a backup of your AOF file, then use cairn-check-aof --fix <filename>",
                                (char *)c->argv[0]->ptr, name, start);
        }
        fakeClientReset(c);
        zfree(c->argv);
        c->argv = NULL;
        c->argv_len = 0;
        if (why) break;
        (*cmds)++;
        if (serve_clients && !check_only && (*cmds & 1023) == 0) processEventsWhileBlocked();
    }
    if (why && !*err && padded && aofPadTorn(fileno(fp), st.st_size, (off_t)valid_up_to)) {
        /* Damage near the end of a last file that ends in pad: the write
         * the power loss tore, never acknowledged (aof_prealloc.c). It is
         * cut like a command cut in the middle. */
        serverLog(LL_WARNING,
                  "AOF %s: %s at offset %lld, in the preallocated tail: a write torn by a crash",
                  name, why, valid_up_to);
        why = NULL;
        cut = 1;
    } else if (!why && !cut && pad_from >= 0 && is_last && !check_only) {
        /* The pad a crash left: cut it, so writes go on from the data. */
        if (truncate(path, (off_t)pad_from) == -1) {
            *err = sdscatprintf(sdsempty(), "Error truncating the AOF file %s: %s", name, strerror(errno));
            ret = AOF_LOAD_FAILED;
        } else {
            serverLog(LL_NOTICE, "AOF %s: cut %lld bytes of preallocated pad at offset %lld", name,
                      (long long)st.st_size - pad_from, pad_from);
        }
    }
    if (why && !*err) *err = loadError(name, valid_up_to, why);
    check_valid = valid_up_to;
    if (why) {
        ret = AOF_LOAD_FAILED;
    } else if (cut) {
        long long keep = in_multi ? valid_before_multi : valid_up_to;
        check_valid = keep;
        if (check_only) {
            ret = AOF_LOAD_TRUNCATED;
        } else if (!is_last) {
            *err = sdscatprintf(sdsempty(),
                                "Unexpected end of file reading the append only file %s at offset "
                                "%lld (it is not the last file of the AOF)",
                                name, keep);
            ret = AOF_LOAD_FAILED;
        } else if (!cfg.aof_load_truncated) {
            *err = sdscatprintf(sdsempty(),
                                "Unexpected end of file reading the append only file %s at offset "
                                "%lld. You can: 1) Make a backup of your AOF file, then use "
                                "cairn-check-aof --fix <filename>. 2) Alternatively you can set the "
                                "'aof-load-truncated' configuration option to yes and restart the "
                                "server.",
                                name, keep);
            ret = AOF_LOAD_FAILED;
        } else {
            serverLog(LL_WARNING, "!!! Warning: short read while loading the AOF file %s!!!", name);
            serverLog(LL_WARNING, "!!! Truncating the AOF %s at offset %lld (%s) !!!", name, keep,
                      in_multi ? "an incomplete MULTI/EXEC transaction" : "a command cut in the middle");
            if (truncate(path, (off_t)keep) == -1) {
                *err = sdscatprintf(sdsempty(), "Error truncating the AOF file %s: %s", name,
                                    strerror(errno));
                ret = AOF_LOAD_FAILED;
            } else {
                serverLog(LL_WARNING, "AOF %s loaded anyway because aof-load-truncated is enabled", name);
                ret = AOF_LOAD_TRUNCATED;
            }
        }
    }
    queueFree(&q);
    zfree(q.argv);
    zfree(q.argc);
    clientFree(c);
    fclose(fp);
    return ret;
}

int aofCheckFile(const char *path, const char *name, long long to_ts, long long *valid,
                 long long *ts_cut, long long *cmds, char **err) {
    check_only = 1;
    check_valid = 0;
    check_to_ts = to_ts;
    check_ts_cut = -1;
    int ret = aofLoadFile(path, name, 1, cmds, err);
    check_only = 0;
    check_to_ts = 0;
    *valid = check_valid;
    *ts_cut = check_ts_cut;
    return ret;
}
