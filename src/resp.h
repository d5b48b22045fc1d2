/* resp: the request parser. Bytes in, argument boundaries out, no I/O and no
 * allocation besides its own argument arrays, so it can be fuzzed alone.
 *
 * A request is either multibulk (*N\r\n$len\r\n...) or inline (a line of
 * space separated words with redis-cli quoting). The parser is resumable: it
 * keeps its position in the caller's buffer and continues when more bytes
 * arrive, so a huge command received in many reads is scanned once.
 *
 * For multibulk requests each argument is an (offset, length) pair relative
 * to the start of the request in the caller's buffer; the caller must keep
 * the bytes from the request start until respParse reports it complete.
 * Inline requests produce owned sds strings (their quotes need unescaping).
 * Error texts are the exact ones Redis 7.0 replies with. */
#ifndef CAIRN_RESP_H
#define CAIRN_RESP_H
#include "sds.h"
#include <stddef.h>

#define RESP_REQ_UNKNOWN   0
#define RESP_REQ_MULTIBULK 1
#define RESP_REQ_INLINE    2

#define RESP_NEED_MORE 0 /* incomplete: call again with more bytes */
#define RESP_DONE      1 /* a request is complete (argc may be 0: ignore it) */
#define RESP_ERROR     2 /* protocol error: err holds the reply text */

/* Argument arrays (the parser's and a client's argv) up to this many
 * entries are kept from one request to the next; bigger ones are freed. */
#define RESP_ARGS_KEEP 1024

typedef struct respArg {
    size_t off;
    size_t len;
} respArg;

typedef struct respLimits {
    long long max_bulk_len;  /* proto-max-bulk-len */
    int unauthenticated;     /* stricter limits before AUTH */
} respLimits;

typedef struct respRequest {
    int type;
    long long multibulk_left; /* arguments still to read */
    long long bulklen;        /* -1 while waiting for a $ line */
    size_t pos;               /* parse position relative to the request start */
    int argc;
    int argcap;
    respArg *args;            /* multibulk */
    size_t args_len;          /* bytes of the complete arguments so far */
    sds *inline_argv;         /* inline, argc entries, owned */
    const char *err;          /* valid after RESP_ERROR, until the next reset */
    char errbuf[64];          /* storage for errors that quote input */
} respRequest;

void respInit(respRequest *r);
/* Forget the current request (frees inline args, keeps the args array). */
void respReset(respRequest *r);
void respFree(respRequest *r);
/* Parse from buf[0..len) where buf is the start of the request. */
int respParse(respRequest *r, const char *buf, size_t len, const respLimits *lim);

#endif
