/* check_rdb: cairn-check-rdb, the snapshot checker (`cairn-server
 * --check-rdb FILE`, or the binary run under the name cairn-check-rdb;
 * utils/cairn-check-rdb is the wrapper users call).
 *
 * It is the server's own loader, not a second parser: rdbLoadFile reads
 * the file (any supported RDB version, plain or inside a zstd/lz4 frame)
 * with an observer in check-only mode, which sees every AUX field and
 * every key, counts keys per database, type and encoding, and frees each
 * value instead of storing it, so a file bigger than memory can be
 * checked. The first error comes back from the loader with its byte
 * offset. Output goes to stdout; the exit status is 0 for a sound file and
 * 1 for any problem. */
#include "check_rdb.h"
#include "object.h"
#include "rdb.h"
#include "rio_codec.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define CHECK_MAX_DBS 64

typedef struct checkState {
    long long by_type_enc[OBJ_TYPE_MAX][16];
    long long keys_per_db[CHECK_MAX_DBS];
    long long expires, expired;
    long long now_ms;
} checkState;

static const char *checkTypeName(int type) {
    static const char *names[OBJ_TYPE_MAX] = {"string", "list", "set", "zset", "hash"};
    return type >= 0 && type < OBJ_TYPE_MAX ? names[type] : "?";
}

static void checkAux(void *ctx, size_t offset, sds field, sds value) {
    (void)ctx;
    printf("[offset %zu] AUX FIELD %s = '%.*s'\n", offset, field, (int)sdslen(value), value);
}

static void checkKey(void *ctx, size_t offset, int dbid, int rdbtype, sds key, robj *val, long long expire) {
    (void)offset, (void)rdbtype, (void)key;
    checkState *st = ctx;
    if (val->type < OBJ_TYPE_MAX && val->encoding < 16) st->by_type_enc[val->type][val->encoding]++;
    if (dbid >= 0 && dbid < CHECK_MAX_DBS) st->keys_per_db[dbid]++;
    if (expire != -1) {
        st->expires++;
        if (expire < st->now_ms) st->expired++;
    }
}

int checkRdbMain(int argc, char **argv) {
    if (argc != 1 || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
        fprintf(stderr, "Usage: cairn-check-rdb <rdb-file-name>\n");
        return 1;
    }
    const char *file = argv[0];
    FILE *fp = fopen(file, "r");
    int codec = fp ? rioCodecDetect(fp) : RIO_CODEC_NONE;
    if (fp) fclose(fp);
    printf("[offset 0] Checking RDB file %s\n", file);
    if (codec != RIO_CODEC_NONE) printf("[info] the RDB is inside a %s frame\n", rioCodecName(codec));

    static checkState st;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    st.now_ms = (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
    rdbLoadObserver obs = {.aux = checkAux, .key = checkKey, .ctx = &st, .check_only = 1};
    rdbLoadSetObserver(&obs);
    rdbLoadStats stats;
    sds err = NULL;
    int ret = rdbLoadFile(file, 0, &stats, &err);
    rdbLoadSetObserver(NULL);
    if (ret == 1) {
        printf("--- RDB ERROR DETECTED ---\n[offset 0] Cannot open the file: it does not exist\n");
        return 1;
    }
    if (ret != 0) {
        printf("--- RDB ERROR DETECTED ---\n");
        printf("[error] %s\n", err ? err : "unknown error");
        printf("[info] %lld keys read before the error\n", stats.keys_loaded);
        sdsfree(err);
        return 1;
    }
    printf("[info] RDB version %d\n", stats.version);
    printf("\\o/ RDB looks OK! \\o/\n");
    printf("[info] %lld keys read\n", stats.keys_loaded);
    printf("[info] %lld expires\n", st.expires);
    printf("[info] %lld already expired\n", st.expired);
    if (stats.functions) printf("[info] %lld functions libraries\n", stats.functions);
    if (stats.empty_keys_skipped) printf("[info] %lld empty keys skipped\n", stats.empty_keys_skipped);
    for (int db = 0; db < CHECK_MAX_DBS; db++)
        if (st.keys_per_db[db]) printf("[info] db%d: %lld keys\n", db, st.keys_per_db[db]);
    for (int t = 0; t < OBJ_TYPE_MAX; t++)
        for (int e = 0; e < 16; e++)
            if (st.by_type_enc[t][e])
                printf("[info] %s %s: %lld keys\n", checkTypeName(t), strEncoding(e), st.by_type_enc[t][e]);
    return 0;
}
