/* fuzz_resp.c -- libFuzzer target for the request parser (src/resp.c).
 *
 * Input format: the first byte is a control byte, the rest is the byte
 * stream a client sends.
 *
 *   control & 3     chunking mode: 0 = everything in one read,
 *                   1 = one byte per read, 2 = 1..16 bytes per read,
 *                   3 = 1..512 bytes per read
 *   control & 0x20  limits of the unauthenticated pass: set = max_bulk_len 8,
 *                   clear = max_bulk_len 32768 (so both the "invalid bulk
 *                   length" and the "unauthenticated bulk length" limits
 *                   are reachable)
 *   control >> 2    seed of the chunk-size generator (modes 2 and 3)
 *
 * So the seed files in corpus/ start with an ASCII letter: '@' (0x40) is
 * "one read", 'A' one byte at a time, 'B' small reads, 'C' larger reads;
 * lower case ('`', 'a', 'b', 'c') the same with the tiny unauthenticated
 * bulk limit.
 *
 * Each input is parsed four times, each time exactly like the server's read
 * loop (client.c: clientReadHandler / clientProcessInput): the bytes of each
 * read are appended to a growing query buffer; respParse is called on the
 * unconsumed bytes until it wants more; after RESP_DONE the consumed prefix
 * (r.pos bytes) is dropped and respReset is called; RESP_ERROR ends the
 * connection.
 *
 *   pass 1: whole input in one read, max_bulk_len 512MB, authenticated
 *   pass 2: chunked reads,           max_bulk_len 512MB, authenticated
 *   pass 3: whole input in one read, small max_bulk_len, unauthenticated
 *   pass 4: chunked reads,           small max_bulk_len, unauthenticated
 *
 * After every respParse call the invariants below are checked and a
 * violation ends in __builtin_trap() (after a line on stderr naming it):
 *   - the status is one of NEED_MORE / DONE / ERROR, and DONE made progress
 *   - pos never exceeds the bytes available
 *   - the request type matches the first byte
 *   - every multibulk argument's off+len lies within the bytes available
 *     (and before pos), and is exactly what an independent re-parse of the
 *     "$<len>\r\n" headers says
 *   - argc never exceeds the announced count (and equals it when DONE)
 *   - inline arguments are valid sds strings (sane header, NUL terminated,
 *     inside their allocation) not longer than the line
 *   - the args array capacity stays <= max(1024, 2 * largest argc seen)
 *   - parser memory (zmalloc_used_memory) stays within 64 bytes per input
 *     byte plus 128 KB, and returns exactly to its start after respFree
 *   - error texts start with "ERR Protocol error: "
 * The bytes after the available length are poisoned under ASan, so any read
 * past what respParse was given is reported even inside our own buffer.
 *
 * Differential check: for inputs up to 64 KB (below every "too big ..."
 * threshold, which legitimately depend on how much arrived at once) the
 * sequence of parsed requests and the final status must not depend on how
 * the bytes were split into reads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resp.h"
#include "sds.h"
#include "zmalloc.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#define FUZZ_POISON(p, n) __asan_poison_memory_region((p), (n))
#define FUZZ_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define FUZZ_POISON(p, n) ((void)(p), (void)(n))
#define FUZZ_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define FUZZ_BIG_BULK (512LL * 1024 * 1024)
#define FUZZ_INLINE_MAX (64 * 1024) /* RESP_INLINE_MAX in resp.c */
#define FUZZ_ARGS_PREALLOC 1024     /* RESP_ARGS_PREALLOC in resp.c */

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_resp: invariant violated (fuzz_resp.c:%d): %s\n", __LINE__,      \
                    #cond);                                                                        \
            fflush(stderr);                                                                        \
            __builtin_trap();                                                                      \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------------
 * Small helpers
 * ---------------------------------------------------------------------- */

#define FNV_INIT 1469598103934665603ULL

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v) {
    return fnv(h, &v, sizeof(v));
}

/* Independent strict decimal parser for the count/length lines: what a
 * canonical "[-]digits" with no leading zeros means. Returns 0 if the text is
 * not such a number (or does not fit), which the parser must have rejected. */
static int ref_parse_ll(const char *s, size_t n, long long *out) {
    if (n == 0 || n > 20) return 0;
    size_t i = 0;
    int neg = 0;
    if (s[0] == '-') {
        neg = 1;
        i = 1;
        if (n == 1) return 0;
    }
    if (n - i > 1 && s[i] == '0') return 0;
    if (neg && s[i] == '0') return 0;
    unsigned long long v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (18446744073709551615ULL - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > 9223372036854775808ULL) return 0;
        *out = (long long)(0ULL - v);
    } else {
        if (v > 9223372036854775807ULL) return 0;
        *out = (long long)v;
    }
    return 1;
}

/* The chunk-size generator: one read's size. */
typedef struct chunker {
    int mode;
    uint32_t state;
} chunker;

static size_t next_chunk(chunker *ch, size_t left) {
    size_t n;
    ch->state ^= ch->state << 13;
    ch->state ^= ch->state >> 17;
    ch->state ^= ch->state << 5;
    switch (ch->mode) {
        case 0: n = left; break;
        case 1: n = 1; break;
        case 2: n = 1 + ch->state % 16; break;
        default: n = 1 + ch->state % 512; break;
    }
    return n < left ? n : left;
}

/* A valid sds string, as far as can be seen from outside sds.c. */
static void check_sds(sds s, size_t maxlen) {
    CHECK(s != NULL);
    unsigned char type = (unsigned char)s[-1] & SDS_TYPE_MASK;
    CHECK(type <= SDS_TYPE_64);
    size_t len = sdslen(s);
    CHECK(len <= maxlen);
    CHECK(len <= sdsalloc(s));
    CHECK(s[len] == '\0');
    CHECK(sdsAllocSize(s) <= zmalloc_size(sdsAllocPtr(s)));
    /* Touch every byte so ASan vouches for the whole string. */
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < len; i++) sink ^= (unsigned char)s[i];
    (void)sink;
}

/* ------------------------------------------------------------------------
 * One pass over the input
 * ---------------------------------------------------------------------- */

typedef struct pass {
    const respLimits *lim;
    size_t mem0;     /* zmalloc_used_memory() before the pass */
    size_t fed;      /* input bytes delivered so far */
    int max_argc;    /* largest argc seen in this pass */
    uint64_t digest; /* hash of every parsed request and the final state */
} pass;

/* The count line "*<n>\r\n" of the multibulk request at buf, if complete.
 * Returns the index just past it (and the count in *count), 0 otherwise. */
static size_t ref_count_line(const char *buf, size_t len, long long *count) {
    const char *cr = memchr(buf, '\r', len);
    if (cr == NULL || (size_t)(cr - buf) + 2 > len) return 0;
    if (!ref_parse_ll(buf + 1, (size_t)(cr - buf) - 1, count)) return 0;
    return (size_t)(cr - buf) + 2;
}

/* Invariants after respParse(r, buf, len) returned st. */
static void check_after_parse(pass *ps, respRequest *r, const char *buf, size_t len, int st) {
    CHECK(st == RESP_NEED_MORE || st == RESP_DONE || st == RESP_ERROR);
    CHECK(r->pos <= len);
    CHECK(r->argc >= 0);
    CHECK(r->argcap >= 0);
    CHECK(r->argcap == 0 || r->args != NULL);
    CHECK(len > 0);
    CHECK(r->type == (buf[0] == '*' ? RESP_REQ_MULTIBULK : RESP_REQ_INLINE));
    if (r->argc > ps->max_argc) ps->max_argc = r->argc;

    /* Memory: bounded by the input, and the args array by the arguments. */
    int capmax = ps->max_argc * 2 > FUZZ_ARGS_PREALLOC ? ps->max_argc * 2 : FUZZ_ARGS_PREALLOC;
    CHECK(r->argcap <= capmax);
    size_t used = zmalloc_used_memory();
    size_t grown = used > ps->mem0 ? used - ps->mem0 : 0;
    CHECK(grown <= 64 * ps->fed + 128 * 1024);

    if (st == RESP_ERROR) {
        CHECK(r->err != NULL);
        CHECK(strncmp(r->err, "ERR Protocol error: ", 20) == 0);
        CHECK(strlen(r->err) < 128);
        return;
    }
    CHECK(r->err == NULL);
    if (st == RESP_DONE) CHECK(r->pos > 0); /* else the server loops forever */

    if (r->type == RESP_REQ_INLINE) {
        if (st == RESP_NEED_MORE) {
            CHECK(r->argc == 0);
            CHECK(r->inline_argv == NULL);
            CHECK(memchr(buf, '\n', strnlen(buf, len)) == NULL);
            return;
        }
        const char *nl = memchr(buf, '\n', strnlen(buf, len));
        CHECK(nl != NULL);
        CHECK(r->pos == (size_t)(nl - buf) + 1);
        CHECK(r->inline_argv != NULL);
        size_t linelen = (size_t)(nl - buf);
        size_t total = 0;
        for (int j = 0; j < r->argc; j++) {
            check_sds(r->inline_argv[j], linelen);
            total += sdslen(r->inline_argv[j]);
        }
        CHECK(total <= linelen);
        return;
    }

    /* Multibulk. */
    CHECK(r->argc <= r->argcap);
    CHECK(r->multibulk_left >= 0);
    CHECK(r->bulklen >= -1 && r->bulklen <= ps->lim->max_bulk_len);
    long long count = 0;
    size_t hdr = ref_count_line(buf, len, &count);
    if (st == RESP_NEED_MORE && r->argc == 0 && r->multibulk_left == 0) {
        CHECK(r->pos == 0); /* still waiting for the count line */
        return;
    }
    /* The count line was accepted: it must be a canonical number. */
    CHECK(hdr > 0);
    CHECK(count <= 2147483647LL);
    if (count <= 0) {
        CHECK(st == RESP_DONE);
        CHECK(r->argc == 0);
        CHECK(r->pos == hdr);
        return;
    }
    CHECK(r->argc <= count);
    CHECK(r->argc + r->multibulk_left == count);
    if (st == RESP_DONE) CHECK(r->argc == count && r->multibulk_left == 0);
    /* Re-derive every argument from its "$<len>\r\n" header. */
    size_t at = hdr;
    for (int j = 0; j < r->argc; j++) {
        size_t off = r->args[j].off, alen = r->args[j].len;
        CHECK(off <= len);
        CHECK(alen <= len - off);
        CHECK(off + alen <= r->pos);
        CHECK(at < off && buf[at] == '$');
        CHECK(off >= at + 3 && buf[off - 2] == '\r');
        CHECK(memchr(buf + at, '\r', off - 2 - at) == NULL);
        long long want = -1;
        CHECK(ref_parse_ll(buf + at + 1, off - 2 - at - 1, &want));
        CHECK(want >= 0 && (unsigned long long)want == alen);
        CHECK(want <= ps->lim->max_bulk_len);
        CHECK(!ps->lim->unauthenticated || want <= 16384);
        at = off + alen + 2;
        CHECK(at <= len);
    }
    if (st == RESP_DONE) {
        CHECK(r->pos == at);
    } else {
        /* Waiting inside an argument: its header ends at pos. */
        CHECK(r->pos >= at);
        if (r->bulklen >= 0) {
            CHECK(r->pos >= at + 4 && buf[at] == '$' && buf[r->pos - 2] == '\r');
            CHECK(len - r->pos < (size_t)r->bulklen + 2);
        } else {
            CHECK(r->pos == at);
        }
    }
}

static uint64_t hash_request(uint64_t h, const respRequest *r, const char *buf) {
    h = fnv_u64(h, 0x5eed0000ULL + (uint64_t)r->type);
    h = fnv_u64(h, (uint64_t)r->argc);
    for (int j = 0; j < r->argc; j++) {
        if (r->type == RESP_REQ_INLINE) {
            sds s = r->inline_argv[j];
            h = fnv_u64(h, sdslen(s));
            h = fnv(h, s, sdslen(s));
        } else {
            h = fnv_u64(h, r->args[j].len);
            h = fnv(h, buf + r->args[j].off, r->args[j].len);
        }
    }
    return fnv_u64(h, r->pos);
}

static uint64_t run_pass(const uint8_t *data, size_t size, const respLimits *lim, int mode,
                         uint32_t seed) {
    pass ps = {lim, zmalloc_used_memory(), 0, 0, FNV_INIT};
    chunker ch = {mode, seed ? seed : 0x9e3779b9u};
    size_t cap = size ? size : 1;
    char *qb = malloc(cap); /* the query buffer, exactly as large as the input */
    size_t qlen = 0;
    respRequest r;
    respInit(&r);
    int st = RESP_NEED_MORE;
    int requests = 0;

    while (ps.fed < size && st != RESP_ERROR) {
        size_t n = next_chunk(&ch, size - ps.fed);
        memcpy(qb + qlen, data + ps.fed, n);
        qlen += n;
        ps.fed += n;
        /* clientProcessInput: parse until the parser wants more bytes. */
        while (qlen > 0) {
            FUZZ_POISON(qb + qlen, cap - qlen);
            st = respParse(&r, qb, qlen, lim);
            FUZZ_UNPOISON(qb, cap);
            check_after_parse(&ps, &r, qb, qlen, st);
            if (st == RESP_NEED_MORE) break;
            if (st == RESP_ERROR) {
                ps.digest = fnv(ps.digest, r.err, strlen(r.err));
                break;
            }
            ps.digest = hash_request(ps.digest, &r, qb);
            requests++;
            size_t consumed = r.pos;
            memmove(qb, qb + consumed, qlen - consumed);
            qlen -= consumed;
            respReset(&r);
            CHECK(r.argc == 0 && r.pos == 0 && r.inline_argv == NULL && r.err == NULL);
        }
    }
    ps.digest = fnv_u64(ps.digest, (uint64_t)st);
    ps.digest = fnv_u64(ps.digest, (uint64_t)requests);
    if (st != RESP_ERROR) ps.digest = fnv_u64(ps.digest, qlen);

    respFree(&r);
    CHECK(r.args == NULL && r.argcap == 0);
    CHECK(zmalloc_used_memory() == ps.mem0); /* nothing leaked */
    free(qb);
    return ps.digest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t control = data[0];
    data++;
    size--;
    int mode = control & 3;
    uint32_t seed = 0x9e3779b9u ^ ((uint32_t)(control >> 2) * 2654435761u);
    /* Chunk-independence only holds below the 64 KB "too big" limits. */
    int differential = size <= FUZZ_INLINE_MAX;

    respLimits big = {FUZZ_BIG_BULK, 0};
    uint64_t whole = run_pass(data, size, &big, 0, seed);
    uint64_t chunked = run_pass(data, size, &big, mode ? mode : 1, seed);
    if (differential) CHECK(whole == chunked);

    respLimits small = {(control & 0x20) ? 8 : 32768, 1};
    whole = run_pass(data, size, &small, 0, seed);
    chunked = run_pass(data, size, &small, mode ? mode : 2, seed);
    if (differential) CHECK(whole == chunked);
    return 0;
}
