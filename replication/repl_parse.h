/* repl_parse: the replication handshake's parsers, pure functions over
 * the bytes a peer sent (no sockets, no server state), so they can be
 * fuzzed on their own (tests/fuzz/fuzz_repl.c).
 *
 *   replica side  (repl_replica.c): the primary's reply to PSYNC and the
 *                 payload's preamble ("$<len>", "$EOF:<mark>", or from a
 *                 cairn primary "$EOF:<mark> lz4|zstd"), and the
 *                 sliding tail that spots the EOF mark;
 *   primary side  (repl_primary.c): PSYNC's offset and one REPLCONF
 *                 option/value pair.
 *
 * Lines are NUL-terminated, CRLF already stripped. Results go into
 * caller-owned structs; nothing is allocated. */
#ifndef CAIRN_REPL_PARSE_H
#define CAIRN_REPL_PARSE_H
#include <stddef.h>

#define REPL_PARSE_ID_LEN 40
#define REPL_EOF_MARK_LEN 40

/* The primary's reply to PSYNC. */
enum {
    REPL_PSYNC_FULLRESYNC, /* replid and offset set */
    REPL_PSYNC_CONTINUE,   /* replid set, or "" if the primary sent none */
    REPL_PSYNC_RETRY,      /* -NOMASTERLINK / -LOADING: try again later */
    REPL_PSYNC_MALFORMED,  /* +FULLRESYNC / +CONTINUE with bad arguments */
    REPL_PSYNC_OTHER,      /* any other reply (an error, garbage) */
};
typedef struct replPsyncReply {
    char replid[REPL_PARSE_ID_LEN + 1];
    long long offset;
} replPsyncReply;
int replParsePsyncReply(const char *line, replPsyncReply *r);

/* The line before a full sync's payload. */
enum {
    REPL_PAYLOAD_SIZED,    /* *size bytes follow */
    REPL_PAYLOAD_EOF,      /* bytes follow until mark[] (not NUL-terminated) */
    REPL_PAYLOAD_ERROR,    /* "-..." the primary gave up */
    REPL_PAYLOAD_NOT_BULK, /* the first byte is not '$' */
    REPL_PAYLOAD_BAD_LEN,  /* '$' and no valid length */
};
int replParsePayloadHeader(const char *line, long long *size, char mark[REPL_EOF_MARK_LEN]);
/* A cairn primary's compressed form (repl-compression, only to replicas
 * that announced capa cairn-lz4/cairn-zstd): "$EOF:<mark> lz4" or
 * "$EOF:<mark> zstd". The codec (and mark[]) when line is one, else
 * REPL_PAYLOAD_CODEC_NONE. */
#define REPL_PAYLOAD_CODEC_NONE 0
#define REPL_PAYLOAD_CODEC_LZ4 1
#define REPL_PAYLOAD_CODEC_ZSTD 2
int replParsePayloadCodec(const char *line, char mark[REPL_EOF_MARK_LEN]);

/* Keeps the last REPL_EOF_MARK_LEN bytes of a stream in tail[] (*taillen
 * of them so far) as n more bytes at buf arrive. */
void replEofTailUpdate(char tail[REPL_EOF_MARK_LEN], size_t *taillen, const char *buf, size_t n);

/* PSYNC's offset argument (len bytes at s): 1 and *off if it is an integer
 * a partial resync can start from, 0 (a full resync) otherwise. */
int replParsePsyncOffset(const char *s, size_t len, long long *off);

/* One REPLCONF option and its value. */
enum {
    REPLCONF_ACK, /* offset */
    REPLCONF_GETACK,
    REPLCONF_LISTENING_PORT, /* port */
    REPLCONF_IP_ADDRESS,     /* the value itself, shorter than ip_max */
    REPLCONF_IP_TOO_LONG,
    REPLCONF_CAPA,     /* capa: REPLCONF_CAPA_* bits, 0 for unknown ones */
    REPLCONF_RDB_ONLY, /* rdb-only 0|1: accepted, ignored */
    REPLCONF_BAD_RDB_ONLY, /* rdb-only with another value */
    REPLCONF_RDB_FILTER,   /* rdb-filter-only: rdb_req, what the payload leaves out */
    REPLCONF_BAD_FILTER,   /* a filter other than "functions" (bad_filter: its name,
                              empty if the value does not split into words) */
    REPLCONF_BAD_ACK,  /* ack with a value that is not an offset */
    REPLCONF_BAD_PORT,
    REPLCONF_UNKNOWN,
};
#define REPLCONF_CAPA_EOF    (1 << 0)
#define REPLCONF_CAPA_PSYNC2 (1 << 1)
#define REPLCONF_CAPA_LZ4    (1 << 2) /* cairn-lz4: decodes an lz4-framed payload */
#define REPLCONF_CAPA_ZSTD   (1 << 3) /* cairn-zstd */
/* rdb-filter-only: Redis starts from "leave out everything" and each named
 * filter (only "functions" exists) puts its part back. */
#define REPL_REQ_EXCLUDE_DATA      (1 << 0)
#define REPL_REQ_EXCLUDE_FUNCTIONS (1 << 1)
typedef struct replconfArg {
    long long offset;
    int port;
    int capa;
    int rdb_req;           /* REPL_REQ_* */
    char bad_filter[64];   /* REPLCONF_BAD_FILTER: the filter named (cut short) */
} replconfArg;
/* ip_max: the size of the buffer the address goes into (with its NUL). */
int replParseReplconf(const char *opt, const char *val, size_t ip_max, replconfArg *a);

#endif
