/* resp: the pure request parser (see resp.h for the model).
 *
 * Bytes enter as (buf, len) where buf is the start of the current request;
 * the parser records argument offsets (multibulk) or owned sds strings
 * (inline) in the respRequest and reports NEED_MORE, DONE or ERROR. Nothing
 * here reads sockets or creates server objects. */
#include "resp.h"
#include "util.h"
#include "zmalloc.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Longest count line or inline request accepted, as in Redis. */
#define RESP_INLINE_MAX (64 * 1024)
/* Arguments preallocated up front: a client announcing *1000000 must send
 * the arguments before we commit memory for them. */
#define RESP_ARGS_PREALLOC 1024
/* Before AUTH, Redis refuses requests that could make it allocate much. */
#define RESP_UNAUTH_MAX_ARGS 10
#define RESP_UNAUTH_MAX_BULK 16384

void respInit(respRequest *r) {
    memset(r, 0, sizeof(*r));
    r->bulklen = -1;
}

void respReset(respRequest *r) {
    if (r->inline_argv) {
        for (int j = 0; j < r->argc; j++) sdsfree(r->inline_argv[j]);
        zfree(r->inline_argv);
        r->inline_argv = NULL;
    }
    /* An array grown for a request with many arguments is not kept for
     * the next one: one 100k-argument command would otherwise pin 2 MB per
     * connection for good. Ordinary requests keep reusing theirs. */
    if (r->argcap > RESP_ARGS_KEEP) {
        zfree(r->args);
        r->args = NULL;
        r->argcap = 0;
    }
    r->type = RESP_REQ_UNKNOWN;
    r->multibulk_left = 0;
    r->bulklen = -1;
    r->pos = 0;
    r->argc = 0;
    r->args_len = 0;
    r->err = NULL;
}

void respFree(respRequest *r) {
    respReset(r);
    zfree(r->args);
    r->args = NULL;
    r->argcap = 0;
}

/* Find a line terminator the way Redis does (strchr on its NUL-terminated
 * query buffer): a NUL byte ends the search, so a line holding a NUL before
 * its terminator is not complete yet. Matching this keeps replies to odd
 * input identical to Redis'. */
static const char *respFindTerminator(const char *p, char ch, size_t len) {
    /* Only the line itself is checked for a NUL: scanning the whole rest of
     * a pipelined buffer for every line would make parsing quadratic. */
    const char *t = memchr(p, ch, len);
    if (t && memchr(p, '\0', (size_t)(t - p)) != NULL) return NULL;
    return t;
}

static int respError(respRequest *r, const char *err) {
    r->err = err;
    return RESP_ERROR;
}

static int respParseInline(respRequest *r, const char *buf, size_t len) {
    const char *nl = respFindTerminator(buf, '\n', len);
    if (nl == NULL) {
        if (len > RESP_INLINE_MAX) return respError(r, "ERR Protocol error: too big inline request");
        return RESP_NEED_MORE;
    }
    size_t linelen = nl - buf;
    size_t consumed = linelen + 1;
    if (linelen > 0 && buf[linelen - 1] == '\r') linelen--;
    /* sdssplitargs wants a NUL-terminated line */
    sds line = sdsnewlen(buf, linelen);
    int argc = 0;
    sds *argv = sdssplitargs(line, &argc);
    sdsfree(line);
    if (argv == NULL) return respError(r, "ERR Protocol error: unbalanced quotes in request");
    r->inline_argv = argv;
    r->argc = argc;
    r->pos = consumed;
    return RESP_DONE;
}

static int respParseMultibulk(respRequest *r, const char *buf, size_t len,
                              const respLimits *lim) {
    long long ll;
    if (r->multibulk_left == 0) {
        /* The count line: "*<n>\r\n" */
        const char *cr = respFindTerminator(buf, '\r', len);
        if (cr == NULL) {
            if (len > RESP_INLINE_MAX)
                return respError(r, "ERR Protocol error: too big mbulk count string");
            return RESP_NEED_MORE;
        }
        if ((size_t)(cr - buf) + 2 > len) return RESP_NEED_MORE; /* wait for \n */
        if (!string2ll(buf + 1, cr - (buf + 1), &ll) || ll > INT_MAX)
            return respError(r, "ERR Protocol error: invalid multibulk length");
        if (ll > RESP_UNAUTH_MAX_ARGS && lim->unauthenticated)
            return respError(r, "ERR Protocol error: unauthenticated multibulk length");
        r->pos = (cr - buf) + 2;
        if (ll <= 0) return RESP_DONE; /* "*0" or "*-1": an empty request, ignored */
        r->multibulk_left = ll;
        int want = ll < RESP_ARGS_PREALLOC ? (int)ll : RESP_ARGS_PREALLOC;
        if (r->argcap < want) {
            r->args = zrealloc(r->args, sizeof(respArg) * want);
            r->argcap = want;
        }
    }
    while (r->multibulk_left) {
        if (r->bulklen == -1) {
            const char *p = buf + r->pos;
            size_t avail = len - r->pos;
            const char *cr = respFindTerminator(p, '\r', avail);
            if (cr == NULL) {
                if (avail > RESP_INLINE_MAX)
                    return respError(r, "ERR Protocol error: too big bulk count string");
                return RESP_NEED_MORE;
            }
            if ((size_t)(cr - p) + 2 > avail) return RESP_NEED_MORE;
            if (p[0] != '$') {
                /* Redis names the offending byte in the message. */
                snprintf(r->errbuf, sizeof(r->errbuf),
                         "ERR Protocol error: expected '$', got '%c'", p[0]);
                return respError(r, r->errbuf);
            }
            if (!string2ll(p + 1, cr - (p + 1), &ll) || ll < 0 || ll > lim->max_bulk_len)
                return respError(r, "ERR Protocol error: invalid bulk length");
            if (ll > RESP_UNAUTH_MAX_BULK && lim->unauthenticated)
                return respError(r, "ERR Protocol error: unauthenticated bulk length");
            r->pos += (cr - p) + 2;
            r->bulklen = ll;
        }
        /* The payload and its trailing CRLF (which, like Redis, we skip
         * without checking). */
        if (len - r->pos < (size_t)r->bulklen + 2) return RESP_NEED_MORE;
        if (r->argc == r->argcap) {
            int want = r->argcap ? r->argcap * 2 : 8;
            r->args = zrealloc(r->args, sizeof(respArg) * want);
            r->argcap = want;
        }
        r->args[r->argc].off = r->pos;
        r->args[r->argc].len = (size_t)r->bulklen;
        r->args_len += (size_t)r->bulklen;
        r->argc++;
        r->pos += (size_t)r->bulklen + 2;
        r->bulklen = -1;
        r->multibulk_left--;
    }
    return RESP_DONE;
}

int respParse(respRequest *r, const char *buf, size_t len, const respLimits *lim) {
    if (len == 0) return RESP_NEED_MORE;
    if (r->type == RESP_REQ_UNKNOWN)
        r->type = buf[0] == '*' ? RESP_REQ_MULTIBULK : RESP_REQ_INLINE;
    if (r->type == RESP_REQ_INLINE) return respParseInline(r, buf, len);
    return respParseMultibulk(r, buf, len, lim);
}
