/* fuzz_restore.c -- libFuzzer target for RESTORE: the payload's footer
 * check (version, CRC64) in persistence/dump.c, the value decoder behind
 * it, the command's options (src/dumpcmd.c), and the commands that then
 * work on the restored value.
 *
 * Input: one control byte, then the payload's body (the RDB type byte and
 * the value's encoding). The harness appends the footer, so every body
 * reaches the decoder through the real CRC check:
 *   control & 3    footer version: 0 = RDB_VERSION, 1 = 9, 2 = 11,
 *                  3 = RDB_VERSION_MAX + 1 (must be refused)
 *   control & 4    a wrong CRC (must be refused)
 *   control & 8    the key exists already and RESTORE says REPLACE
 *   control & 0x30 0: no TTL, 1: TTL 100000 ms, 2: ABSTTL 1 (already
 *                  expired: no key), 3: IDLETIME 1000
 *   control & 0x40 maxmemory-policy allkeys-lfu and FREQ 7
 *
 * Commands run through a fake client (commandRunProc: their procs called
 * directly, as the AOF loader does), replies collected from its buffers. Invariants (a
 * violation traps after a line on stderr):
 *   - the reply is +OK or one of the two payload errors; a refused payload
 *     leaves the keyspace as it was; a wrong version or CRC is refused;
 *   - an accepted value DUMPs into a payload that RESTOREs, with the same
 *     DEBUG DIGEST-VALUE (the bytes may differ: a hash table DUMPs in its
 *     iteration order);
 *   - then every read command of its type, and a few writes (which may
 *     convert the encoding), run on it under ASan/UBSan, and DEBUG
 *     DIGEST-VALUE / DUMP still work after them.
 * The keyspace is emptied after every input. */
#define FUZZ_WITH_SERVER
#include "fuzz_common.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "crc64.h"
#include "db.h"
#include "object.h"
#include "rdb.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "zmalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK FUZZ_CHECK

static client *fc;

static void fuzzInit(void) {
    static int done;
    if (done) return;
    done = 1;
    fuzzServerInit();
    cfg.enable_debug_cmd = DEBUG_CMD_YES;
    fc = clientCreate(NULL, CLIENT_FAKE | CLIENT_AUTHENTICATED | CLIENT_DENY_BLOCKING);
}

/* Runs argv (lens[j] bytes of args[j]) and returns its reply (caller frees). */
static sds runv(int argc, const char **args, const size_t *lens) {
    client *c = fc;
    c->argv = zmalloc(sizeof(robj *) * (size_t)argc);
    for (int j = 0; j < argc; j++) c->argv[j] = createStringObject(args[j], lens[j]);
    c->argc = c->argv_len = argc;
    cairnCommand *cmd = commandLookup(c->argv, c->argc);
    CHECK(cmd && cmd->proc, args[0]);
    commandRunProc(c, cmd);
    sds reply = sdsnewlen(c->buf, c->bufpos);
    for (replyBlock *b = c->reply_head; b; b = b->next) reply = sdscatlen(reply, b->buf, b->used);
    clientFreeOriginalArgv(c);
    clientFreeArgv(c);
    zfree(c->argv);
    c->argv = NULL;
    c->argc = c->argv_len = 0;
    c->bufpos = 0;
    c->sentlen = 0;
    replyFreeBlocks(c);
    return reply;
}

/* run("GET", "k", NULL): NUL-terminated string arguments. */
static sds run(const char *first, ...) {
    const char *args[16];
    size_t lens[16];
    int argc = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 16; a = va_arg(ap, const char *)) {
        args[argc] = a;
        lens[argc++] = strlen(a);
    }
    va_end(ap);
    return runv(argc, args, lens);
}

#define RUN(...) sdsfree(run(__VA_ARGS__, NULL))

/* The payload of a bulk reply ("$n\r\n...\r\n"), or NULL. */
static sds bulkOf(sds reply) {
    if (sdslen(reply) < 4 || reply[0] != '$' || reply[1] == '-') return NULL;
    char *end;
    long long n = strtoll(reply + 1, &end, 10);
    CHECK(end[0] == '\r' && end[1] == '\n', "bulk header");
    size_t hdr = (size_t)(end + 2 - reply);
    CHECK(n >= 0 && hdr + (size_t)n + 2 == sdslen(reply), "bulk length");
    return sdsnewlen(reply + hdr, (size_t)n);
}

static sds dumpOf(const char *key) {
    sds r = run("DUMP", key, NULL);
    sds p = bulkOf(r);
    sdsfree(r);
    return p;
}

static int isType(sds t, const char *name) {
    char want[32];
    snprintf(want, sizeof(want), "+%s\r\n", name);
    return !strcmp(t, want);
}

/* Reads (and a few writes) of the value's type, on key k. */
static void exercise(void) {
    sds t = run("TYPE", "k", NULL);
    RUN("OBJECT", "ENCODING", "k");
    RUN("STRLEN", "k");
    if (isType(t, "string")) {
        RUN("GET", "k");
        RUN("GETRANGE", "k", "-5", "-1");
        RUN("APPEND", "k", "x");
        RUN("INCR", "k");
    } else if (isType(t, "list")) {
        RUN("LRANGE", "k", "0", "-1");
        RUN("LINDEX", "k", "-1");
        RUN("LPOS", "k", "a");
        RUN("LINSERT", "k", "BEFORE", "a", "b");
        RUN("RPUSH", "k", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        RUN("LPOP", "k");
        RUN("LTRIM", "k", "1", "-2");
    } else if (isType(t, "set")) {
        RUN("SMEMBERS", "k");
        RUN("SISMEMBER", "k", "1");
        RUN("SRANDMEMBER", "k", "-5");
        RUN("SSCAN", "k", "0", "COUNT", "100");
        RUN("SADD", "k", "not-an-integer");
        RUN("SPOP", "k");
        RUN("SINTERCARD", "1", "k");
    } else if (isType(t, "zset")) {
        RUN("ZRANGE", "k", "0", "-1", "WITHSCORES");
        RUN("ZRANGEBYSCORE", "k", "-inf", "+inf");
        RUN("ZRANGEBYLEX", "k", "-", "+");
        RUN("ZRANK", "k", "a");
        RUN("ZSCORE", "k", "a");
        RUN("ZRANDMEMBER", "k", "-5", "WITHSCORES");
        RUN("ZSCAN", "k", "0", "COUNT", "100");
        RUN("ZADD", "k", "1.5",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        RUN("ZINCRBY", "k", "1", "a");
        RUN("ZPOPMIN", "k");
        RUN("ZREMRANGEBYRANK", "k", "0", "0");
    } else if (isType(t, "hash")) {
        RUN("HGETALL", "k");
        RUN("HGET", "k", "a");
        RUN("HRANDFIELD", "k", "-5", "WITHVALUES");
        RUN("HSCAN", "k", "0", "COUNT", "100");
        RUN("HINCRBY", "k", "n", "1");
        RUN("HSET", "k", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "v");
        RUN("HDEL", "k", "a");
    } else if (isType(t, "stream")) {
        RUN("XRANGE", "k", "-", "+");
        RUN("XREVRANGE", "k", "+", "-", "COUNT", "3");
        RUN("XLEN", "k");
        RUN("XINFO", "STREAM", "k", "FULL");
        RUN("XINFO", "GROUPS", "k");
        RUN("XADD", "k", "*", "f", "v");
        RUN("XTRIM", "k", "MAXLEN", "2");
    }
    sdsfree(t);
    RUN("DEBUG", "DIGEST-VALUE", "k");
    sds again = dumpOf("k");
    sdsfree(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInit();
    if (size < 1) return 0;
    int ctl = data[0];
    static const int versions[4] = {RDB_VERSION, 9, 11, RDB_VERSION_MAX + 1};
    int version = versions[ctl & 3];
    sds payload = sdsnewlen(data + 1, size - 1);
    unsigned char footer[10] = {(unsigned char)(version & 0xff), (unsigned char)(version >> 8)};
    payload = sdscatlen(payload, footer, 2);
    uint64_t crc = crc64(0, payload, sdslen(payload));
    if (ctl & 4) crc ^= 1;
    for (int j = 0; j < 8; j++) footer[2 + j] = (unsigned char)(crc >> (8 * j));
    payload = sdscatlen(payload, footer + 2, 8);
    int must_fail = (ctl & 4) || version > RDB_VERSION_MAX;

    cfg.maxmemory_policy = (ctl & 0x40) ? MAXMEMORY_ALLKEYS_LFU : MAXMEMORY_NO_EVICTION;
    if (ctl & 8) RUN("SET", "k", "old");
    const char *args[10] = {"RESTORE", "k", "0", payload};
    size_t lens[10] = {7, 1, 1, sdslen(payload)};
    int argc = 4;
#define OPT(s) (args[argc] = (s), lens[argc] = strlen(s), argc++)
    if (ctl & 8) OPT("REPLACE");
    int ttlmode = (ctl >> 4) & 3;
    if (ttlmode == 1) args[2] = "100000", lens[2] = 6;
    if (ttlmode == 2) args[2] = "1", lens[2] = 1, OPT("ABSTTL");
    if (ttlmode == 3) OPT("IDLETIME"), OPT("1000");
    if (ctl & 0x40) OPT("FREQ"), OPT("7");
    sds reply = runv(argc, args, lens);
    int ok = !strcmp(reply, "+OK\r\n");
    if (!ok) {
        int both = ttlmode == 3 && (ctl & 0x40); /* IDLETIME with FREQ */
        CHECK(!strcmp(reply, "-ERR Bad data format\r\n") ||
                  (both && !strcmp(reply, "-ERR syntax error\r\n")) ||
                  !strcmp(reply, "-ERR DUMP payload version or checksum are wrong\r\n"),
              "RESTORE replied neither OK nor a payload error");
        sds old = run("GET", "k", NULL);
        CHECK(!strcmp(old, (ctl & 8) ? "$3\r\nold\r\n" : "$-1\r\n"),
              "a refused RESTORE changed the key");
        sdsfree(old);
    }
    CHECK(!ok || !must_fail, "a wrong version or CRC was accepted");
    sdsfree(reply);

    if (ok && ttlmode != 2) {
        sds p = dumpOf("k");
        CHECK(p != NULL, "a restored key does not DUMP");
        const char *args2[4] = {"RESTORE", "k2", "0", p};
        size_t lens2[4] = {7, 2, 1, sdslen(p)};
        reply = runv(4, args2, lens2);
        CHECK(!strcmp(reply, "+OK\r\n"), "a DUMPed value does not RESTORE");
        sdsfree(reply);
        sds p2 = dumpOf("k2");
        /* Not byte for byte: a hash table's DUMP follows its iteration order. */
        CHECK(p2 != NULL, "the copy does not DUMP");
        sds d = run("DEBUG", "DIGEST-VALUE", "k", "k2", NULL);
        /* *2\r\n+<40 hex>\r\n+<40 hex>\r\n; a TTL is part of the digest */
        CHECK(sdslen(d) == 4 + 2 * 43, "DEBUG DIGEST-VALUE reply");
        CHECK(ttlmode == 1 || !memcmp(d + 5, d + 5 + 43, 40), "digests differ");
        sdsfree(d);
        sdsfree(p);
        sdsfree(p2);
        exercise();
    } else if (ok) {
        sds e = run("EXISTS", "k", NULL);
        CHECK(!strcmp(e, ":0\r\n"), "an expired RESTORE created the key");
        sdsfree(e);
    }
    sdsfree(payload);
    dbEmpty(-1, 0);
    return 0;
}
