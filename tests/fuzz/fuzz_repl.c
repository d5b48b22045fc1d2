/* fuzz_repl.c -- libFuzzer target for the replication handshake's parsers
 * (replication/repl_parse.c), both sides of the link.
 *
 * Input: one mode byte (taken modulo 5), then the bytes.
 *   0  a reply to PSYNC: the bytes up to the first newline, as the
 *      replica's line reader hands them over (a CR before the newline
 *      dropped, at most 1023 bytes, cut at a NUL)
 *   1  the line before a full sync's payload (same line rules)
 *   2  payload bytes for the EOF-mark tail, in chunks whose sizes the
 *      bytes themselves choose
 *   3  PSYNC's offset argument (all the bytes, NULs included)
 *   4  a REPLCONF option and value: the bytes before the first NUL, the
 *      bytes after it
 *
 * Invariants (a violation traps after a line on stderr):
 *   - an accepted +FULLRESYNC has a 40-byte ID without NUL and an offset
 *     >= 0, and printing it back the way a primary does parses the same;
 *     +CONTINUE's ID is empty or 40 bytes;
 *   - a sized payload has a length >= 0 that prints back to the same
 *     line; an EOF payload's line is exactly "$EOF:" and its mark;
 *   - the tail always holds exactly the last min(40, seen) bytes;
 *   - an accepted PSYNC offset minus one does not overflow, and prints
 *     back to the same text;
 *   - a REPLCONF port is 0..65535, an accepted ip-address fits its buffer,
 *     an ack offset prints back to its text. */
#include "fuzz_common.h"
#include "repl_parse.h"
#include "util.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK FUZZ_CHECK

#define LINE_MAX_LEN 1024

/* The replica's line reader: up to the newline, CR stripped, C string. */
static void readLine(const uint8_t *p, size_t len, char *line) {
    size_t n = 0;
    while (n < len && p[n] != '\n' && n + 1 < LINE_MAX_LEN) n++;
    memcpy(line, p, n);
    if (n && line[n - 1] == '\r') n--;
    line[n] = '\0';
}

static void fuzzPsyncReply(const char *line) {
    replPsyncReply r;
    int kind = replParsePsyncReply(line, &r);
    if (kind == REPL_PSYNC_FULLRESYNC) {
        CHECK(strlen(r.replid) == REPL_PARSE_ID_LEN, "FULLRESYNC replid length");
        CHECK(r.offset >= 0, "negative FULLRESYNC offset");
        char again[128];
        snprintf(again, sizeof(again), "+FULLRESYNC %s %lld", r.replid, r.offset);
        replPsyncReply r2;
        CHECK(replParsePsyncReply(again, &r2) == REPL_PSYNC_FULLRESYNC,
              "reprinted FULLRESYNC refused");
        CHECK(!strcmp(r.replid, r2.replid) && r.offset == r2.offset,
              "reprinted FULLRESYNC differs");
        CHECK(!strcmp(again, line), "FULLRESYNC accepted in a form a primary does not send");
    } else if (kind == REPL_PSYNC_CONTINUE) {
        size_t l = strlen(r.replid);
        CHECK(l == 0 || l == REPL_PARSE_ID_LEN, "CONTINUE replid length");
    } else {
        CHECK(kind == REPL_PSYNC_RETRY || kind == REPL_PSYNC_MALFORMED || kind == REPL_PSYNC_OTHER,
              "unknown PSYNC reply kind");
    }
}

static void fuzzPayloadHeader(const char *line) {
    long long size;
    char mark[REPL_EOF_MARK_LEN];
    int codec = replParsePayloadCodec(line, mark);
    if (codec != REPL_PAYLOAD_CODEC_NONE) {
        const char *name = codec == REPL_PAYLOAD_CODEC_LZ4 ? " lz4" : " zstd";
        CHECK(codec == REPL_PAYLOAD_CODEC_LZ4 || codec == REPL_PAYLOAD_CODEC_ZSTD, "payload codec");
        CHECK(!memcmp(line, "$EOF:", 5) && !memcmp(line + 5, mark, REPL_EOF_MARK_LEN) &&
                  !strcmp(line + 5 + REPL_EOF_MARK_LEN, name),
              "compressed EOF header");
    }
    int kind = replParsePayloadHeader(line, &size, mark);
    if (kind == REPL_PAYLOAD_SIZED) {
        CHECK(size >= 0, "negative payload size");
        char again[64];
        snprintf(again, sizeof(again), "$%lld", size);
        CHECK(!strcmp(again, line), "payload size in a non-canonical form");
    } else if (kind == REPL_PAYLOAD_EOF) {
        CHECK(size == -1, "EOF payload with a size");
        CHECK(strlen(line) == 5 + REPL_EOF_MARK_LEN && !memcmp(line, "$EOF:", 5) &&
                  !memcmp(line + 5, mark, REPL_EOF_MARK_LEN),
              "EOF mark");
    } else if (kind == REPL_PAYLOAD_ERROR) {
        CHECK(line[0] == '-', "error without '-'");
    } else {
        CHECK(kind == REPL_PAYLOAD_NOT_BULK ? line[0] != '$'
                                            : kind == REPL_PAYLOAD_BAD_LEN && line[0] == '$',
              "payload header kind");
    }
}

static void fuzzEofTail(const uint8_t *p, size_t len) {
    char tail[REPL_EOF_MARK_LEN];
    size_t taillen = 0, pos = 0;
    while (pos < len) {
        /* The chunk size: the byte at pos, so the fuzzer controls it. */
        size_t n = 1 + p[pos] % 64;
        if (n > len - pos) n = len - pos;
        replEofTailUpdate(tail, &taillen, (const char *)p + pos, n);
        pos += n;
        size_t want = pos < REPL_EOF_MARK_LEN ? pos : REPL_EOF_MARK_LEN;
        CHECK(taillen == want, "tail length");
        CHECK(!memcmp(tail, p + pos - want, want), "tail bytes");
    }
}

static void fuzzPsyncOffset(const uint8_t *p, size_t len) {
    long long off;
    if (!replParsePsyncOffset((const char *)p, len, &off)) return;
    CHECK(off > LLONG_MIN, "an offset without a stream position");
    long long want = off - 1; /* what replTryPartial computes */
    (void)want;
    char again[32];
    int n = snprintf(again, sizeof(again), "%lld", off);
    CHECK((size_t)n == len && !memcmp(again, p, len), "offset in a non-canonical form");
}

static void fuzzReplconf(const uint8_t *p, size_t len) {
    char *buf = malloc(len + 2);
    memcpy(buf, p, len);
    buf[len] = buf[len + 1] = '\0';
    const char *opt = buf, *val = buf + strlen(buf) + 1;
    if (val > buf + len) val = buf + len + 1; /* no NUL: an empty value */
    replconfArg a;
    int kind = replParseReplconf(opt, val, 46, &a);
    switch (kind) {
        case REPLCONF_ACK: {
            char again[32];
            snprintf(again, sizeof(again), "%lld", a.offset);
            CHECK(!strcmp(again, val), "ack offset in a non-canonical form");
            break;
        }
        case REPLCONF_LISTENING_PORT:
            CHECK(a.port >= 0 && a.port <= 65535, "port out of range");
            break;
        case REPLCONF_IP_ADDRESS:
            CHECK(strlen(val) < 46, "ip-address too long for its buffer");
            break;
        case REPLCONF_CAPA:
            CHECK((a.capa & ~(REPLCONF_CAPA_EOF | REPLCONF_CAPA_PSYNC2 | REPLCONF_CAPA_LZ4 | REPLCONF_CAPA_ZSTD)) == 0,
                  "unknown capa bit");
            break;
        default:
            CHECK(kind >= REPLCONF_ACK && kind <= REPLCONF_UNKNOWN, "unknown REPLCONF kind");
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const uint8_t *p = data + 1;
    size_t len = size - 1;
    char line[LINE_MAX_LEN];
    switch (data[0] % 5) {
        case 0:
            readLine(p, len, line);
            fuzzPsyncReply(line);
            break;
        case 1:
            readLine(p, len, line);
            fuzzPayloadHeader(line);
            break;
        case 2:
            fuzzEofTail(p, len);
            break;
        case 3:
            fuzzPsyncOffset(p, len);
            break;
        case 4:
            fuzzReplconf(p, len);
            break;
    }
    return 0;
}
