/* replay: the archived stream as commands, for restore and verify.
 *
 * A timeline's bytes (segments concatenated from the backup's offset) are
 * cut into commands by the server's own request parser (src/resp.c).
 * replayScan calls back once per command with its source offsets; it
 * fails, naming the offset, on bytes that are no command. Transactions
 * matter for a cut: replayBoundary moves a cut point back to the last
 * command boundary that is not inside MULTI ... EXEC, so a restore never
 * holds half a transaction. The AOF increment keeps every command except
 * the link's own (PING, REPLCONF), byte for byte as the source sent it. */
#include "backup.h"
#include "resp.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The command name of a parsed request into name[cap]. */
static void replayName(const respRequest *req, const char *buf, char *name, size_t cap) {
    const char *p;
    size_t len;
    if (req->type == RESP_REQ_INLINE) {
        p = req->inline_argv[0];
        len = sdslen(req->inline_argv[0]);
    } else {
        p = buf + req->args[0].off;
        len = req->args[0].len;
    }
    if (len >= cap) len = cap - 1;
    memcpy(name, p, len);
    name[len] = '\0';
}

int replayScan(const char *buf, size_t len, long long base, replayFn *fn, void *ctx,
               long long *stop, sds *err) {
    respRequest req;
    respInit(&req);
    respLimits lim = {.max_bulk_len = 512LL * 1024 * 1024, .unauthenticated = 0};
    size_t pos = 0;
    int ret = 0;
    while (pos < len) {
        respReset(&req);
        int r = respParse(&req, buf + pos, len - pos, &lim);
        if (r == RESP_NEED_MORE) break; /* a command cut by the end of the range */
        if (r == RESP_ERROR) {
            *err = sdscatprintf(sdsempty(), "no command at stream offset %lld: %s",
                                base + (long long)pos + 1, req.err);
            ret = -1;
            break;
        }
        size_t n = req.pos;
        if (req.argc > 0) {
            char name[64];
            replayName(&req, buf + pos, name, sizeof(name));
            if (fn &&
                !fn(ctx, name, buf + pos, n, base + (long long)pos, base + (long long)(pos + n))) {
                pos += n;
                break;
            }
        }
        pos += n;
    }
    respFree(&req);
    if (stop) *stop = base + (long long)pos;
    return ret;
}

typedef struct boundaryState {
    long long limit, best, multi_start;
    int in_multi;
} boundaryState;

static int boundaryStep(void *ctx, const char *name, const char *cmd, size_t len, long long start,
                        long long end) {
    (void)cmd, (void)len;
    boundaryState *b = ctx;
    if (end > b->limit) return 0;
    if (!strcasecmp(name, "multi")) {
        b->in_multi = 1;
        b->multi_start = start;
    } else if (!strcasecmp(name, "exec") || !strcasecmp(name, "discard")) {
        b->in_multi = 0;
    }
    b->best = b->in_multi ? b->multi_start : end;
    return 1;
}

long long replayBoundary(const char *buf, size_t len, long long base, long long limit) {
    boundaryState b = {.limit = limit, .best = base};
    sds err = NULL;
    replayScan(buf, len, base, boundaryStep, &b, NULL, &err);
    sdsfree(err);
    return b.best;
}

typedef struct findState {
    const char *name;
    long long found;
} findState;

static int findStep(void *ctx, const char *name, const char *cmd, size_t len, long long start,
                    long long end) {
    (void)cmd, (void)len, (void)end;
    findState *f = ctx;
    if (!strcasecmp(name, f->name)) f->found = start;
    return 1;
}

long long replayFindLast(const char *buf, size_t len, long long base, const char *name) {
    findState f = {.name = name, .found = -1};
    sds err = NULL;
    replayScan(buf, len, base, findStep, &f, NULL, &err);
    sdsfree(err);
    return f.found;
}

static int aofStep(void *ctx, const char *name, const char *cmd, size_t len, long long start,
                   long long end) {
    (void)start, (void)end;
    sds *out = ctx;
    if (strcasecmp(name, "ping") && strcasecmp(name, "replconf")) *out = sdscatlen(*out, cmd, len);
    return 1;
}

sds replayToAof(const char *buf, size_t len, long long base, int stream_db) {
    char db[16];
    int n = snprintf(db, sizeof(db), "%d", stream_db);
    /* The stream continues in the database the snapshot recorded. */
    sds out = sdscatprintf(sdsempty(), "*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n", n, db);
    sds err = NULL;
    replayScan(buf, len, base, aofStep, &out, NULL, &err);
    sdsfree(err);
    return out;
}
