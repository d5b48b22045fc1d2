/* repl_parse: the replication handshake's parsers (see repl_parse.h).
 *
 * Bytes enter as one line a peer sent (or a chunk of a payload for the EOF
 * tail) and leave as a result code plus fields in a caller-owned struct.
 * The rules follow what Redis 7.0 sends and accepts; where Redis is lax
 * about garbage it cannot have sent itself (a negative +FULLRESYNC offset,
 * an offset no stream position can be), these refuse, so the caller drops
 * the link instead of adopting nonsense. */
#include "repl_parse.h"
#include "sds.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A replication ID: exactly 40 characters up to `end` (a space or NUL). */
static int copyId(const char *p, const char *end, char *out) {
    if (end - p != REPL_PARSE_ID_LEN) return 0;
    memcpy(out, p, REPL_PARSE_ID_LEN);
    out[REPL_PARSE_ID_LEN] = '\0';
    return 1;
}

int replParsePsyncReply(const char *line, replPsyncReply *r) {
    r->replid[0] = '\0';
    r->offset = -1;
    if (!strncmp(line, "+FULLRESYNC", 11)) {
        /* "+FULLRESYNC <replid> <offset>", single spaces as Redis sends. */
        const char *id = line + 11;
        if (*id++ != ' ') return REPL_PSYNC_MALFORMED;
        const char *sp = strchr(id, ' ');
        if (!sp || !copyId(id, sp, r->replid)) return REPL_PSYNC_MALFORMED;
        long long off;
        if (!string2ll(sp + 1, strlen(sp + 1), &off) || off < 0) return REPL_PSYNC_MALFORMED;
        r->offset = off;
        return REPL_PSYNC_FULLRESYNC;
    }
    if (!strncmp(line, "+CONTINUE", 9)) {
        /* "+CONTINUE" from a pre-PSYNC2 primary, else "+CONTINUE <replid>". */
        const char *id = line + 9;
        while (*id == ' ') id++;
        if (*id && !copyId(id, id + strlen(id), r->replid)) return REPL_PSYNC_MALFORMED;
        return REPL_PSYNC_CONTINUE;
    }
    if (!strncmp(line, "-NOMASTERLINK", 13) || !strncmp(line, "-LOADING", 8))
        return REPL_PSYNC_RETRY;
    return REPL_PSYNC_OTHER;
}

int replParsePayloadHeader(const char *line, long long *size, char mark[REPL_EOF_MARK_LEN]) {
    *size = -1;
    if (line[0] == '-') return REPL_PAYLOAD_ERROR;
    if (line[0] != '$') return REPL_PAYLOAD_NOT_BULK;
    if (!strncmp(line + 1, "EOF:", 4) && strlen(line + 5) == REPL_EOF_MARK_LEN) {
        memcpy(mark, line + 5, REPL_EOF_MARK_LEN);
        return REPL_PAYLOAD_EOF;
    }
    long long len;
    if (!string2ll(line + 1, strlen(line + 1), &len) || len < 0) return REPL_PAYLOAD_BAD_LEN;
    *size = len;
    return REPL_PAYLOAD_SIZED;
}

int replParsePayloadCodec(const char *line, char mark[REPL_EOF_MARK_LEN]) {
    if (strncmp(line, "$EOF:", 5) || strlen(line + 5) <= REPL_EOF_MARK_LEN || line[5 + REPL_EOF_MARK_LEN] != ' ')
        return REPL_PAYLOAD_CODEC_NONE;
    const char *name = line + 5 + REPL_EOF_MARK_LEN + 1;
    int codec = !strcmp(name, "lz4")    ? REPL_PAYLOAD_CODEC_LZ4
                : !strcmp(name, "zstd") ? REPL_PAYLOAD_CODEC_ZSTD
                                        : REPL_PAYLOAD_CODEC_NONE;
    if (codec != REPL_PAYLOAD_CODEC_NONE) memcpy(mark, line + 5, REPL_EOF_MARK_LEN);
    return codec;
}

void replEofTailUpdate(char tail[REPL_EOF_MARK_LEN], size_t *taillen, const char *buf, size_t n) {
    if (n >= REPL_EOF_MARK_LEN) {
        memcpy(tail, buf + n - REPL_EOF_MARK_LEN, REPL_EOF_MARK_LEN);
        *taillen = REPL_EOF_MARK_LEN;
        return;
    }
    /* Keep as many old bytes as leave room for the n new ones. */
    size_t keep = *taillen + n > REPL_EOF_MARK_LEN ? REPL_EOF_MARK_LEN - n : *taillen;
    memmove(tail, tail + *taillen - keep, keep);
    memcpy(tail + keep, buf, n);
    *taillen = keep + n;
}

int replParsePsyncOffset(const char *s, size_t len, long long *off) {
    /* The stream position is the offset minus one (Redis counts from 1):
     * LLONG_MIN has none. */
    if (!string2ll(s, len, off) || *off == LLONG_MIN) return 0;
    return 1;
}

int replParseReplconf(const char *opt, const char *val, size_t ip_max, replconfArg *a) {
    if (!strcasecmp(opt, "ack")) {
        return string2ll(val, strlen(val), &a->offset) ? REPLCONF_ACK : REPLCONF_BAD_ACK;
    }
    if (!strcasecmp(opt, "getack")) return REPLCONF_GETACK;
    if (!strcasecmp(opt, "listening-port")) {
        long port;
        if (!string2l(val, strlen(val), &port) || port < 0 || port > 65535)
            return REPLCONF_BAD_PORT;
        a->port = (int)port;
        return REPLCONF_LISTENING_PORT;
    }
    if (!strcasecmp(opt, "ip-address")) {
        return strlen(val) < ip_max ? REPLCONF_IP_ADDRESS : REPLCONF_IP_TOO_LONG;
    }
    if (!strcasecmp(opt, "capa")) {
        a->capa = !strcasecmp(val, "eof")      ? REPLCONF_CAPA_EOF
                  : !strcasecmp(val, "psync2") ? REPLCONF_CAPA_PSYNC2
                  : !strcasecmp(val, "cairn-lz4") ? REPLCONF_CAPA_LZ4
                  : !strcasecmp(val, "cairn-zstd") ? REPLCONF_CAPA_ZSTD
                                               : 0;
        return REPLCONF_CAPA;
    }
    if (!strcasecmp(opt, "rdb-only")) {
        long v;
        return string2l(val, strlen(val), &v) && (v == 0 || v == 1) ? REPLCONF_RDB_ONLY
                                                                    : REPLCONF_BAD_RDB_ONLY;
    }
    if (!strcasecmp(opt, "rdb-filter-only")) {
        /* Words as sdssplitargs splits them; unbalanced quotes are
         * REPLCONF_BAD_FILTER with an empty name (Redis: missing values). */
        int n = 0, kind = REPLCONF_RDB_FILTER;
        sds *words = sdssplitargs(val, &n);
        a->bad_filter[0] = '\0';
        if (!words) return REPLCONF_BAD_FILTER;
        a->rdb_req = REPL_REQ_EXCLUDE_DATA | REPL_REQ_EXCLUDE_FUNCTIONS;
        for (int j = 0; words && j < n; j++) {
            if (!strcasecmp(words[j], "functions")) {
                a->rdb_req &= ~REPL_REQ_EXCLUDE_FUNCTIONS;
            } else {
                snprintf(a->bad_filter, sizeof(a->bad_filter), "%s", words[j]);
                kind = REPLCONF_BAD_FILTER;
                break;
            }
        }
        if (words) sdsfreesplitres(words, n);
        return kind;
    }
    return REPLCONF_UNKNOWN;
}
