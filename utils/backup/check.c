/* check: the server's RDB loader in check-only mode over a snapshot, which
 * proves it sound and counts its keys (per db, per type, with expires).
 *
 * From a file (verify, restore --to-server): backupScanFile/backupCountFile,
 * every key decoded and freed by the loader; nothing is kept.
 * While it arrives (full): checkRio runs the loader on full.c's rio, whose
 * reads pull the payload from the link (and hash, compress and store it on
 * the way), so the check is the transfer's own reading: no thread, no
 * copy. The loader skims there (rdb.h): the structure of every value, the
 * key counts and the RDB's CRC64, without decoding, so it keeps up with
 * the transfer on a busy machine; `verify` decodes every value.
 *
 * The loader's observer is process-wide: nothing else loads meanwhile. */
#include "backup.h"
#include "object.h"
#include "rdb.h"
#include "rio.h"

#include <stdlib.h>
#include <string.h>

static void countKey(void *ctx, size_t offset, int dbid, int rdbtype, sds key, robj *val,
                     long long expire) {
    (void)offset, (void)rdbtype, (void)key;
    backupCounts *c = ctx;
    c->keys++;
    if (dbid >= 0 && dbid < BACKUP_MAX_DBS) c->keys_db[dbid]++;
    if (val->type < BACKUP_TYPES) c->keys_type[val->type]++;
    if (expire != -1) c->expires++;
}

static void countSkimmed(void *ctx, size_t offset, int dbid, int rdbtype, long long expire) {
    (void)offset;
    backupCounts *c = ctx;
    int type = rdbObjectTypeOf(rdbtype);
    c->keys++;
    if (dbid >= 0 && dbid < BACKUP_MAX_DBS) c->keys_db[dbid]++;
    if (type >= 0 && type < BACKUP_TYPES) c->keys_type[type]++;
    if (expire != -1) c->expires++;
}

static void countAux(void *ctx, size_t offset, sds field, sds value) {
    (void)ctx, (void)offset, (void)field, (void)value;
}

int backupScanFile(const char *path, backupKeyFn *fn, backupLibraryFn *lib, void *ctx,
                   rdbLoadStats *st, sds *err) {
    rdbLoadObserver obs = {
        .aux = countAux, .key = fn, .function = lib, .ctx = ctx, .check_only = 1};
    rdbLoadSetObserver(&obs);
    memset(st, 0, sizeof(*st));
    int ret = rdbLoadFile(path, 0, st, err);
    rdbLoadSetObserver(NULL);
    if (ret == 1) *err = sdscatprintf(sdsempty(), "%s does not exist", path);
    return ret == 0 ? 0 : -1;
}

static void countFromStats(backupCounts *c, const rdbLoadStats *st) {
    c->rdb_version = st->version;
    c->stream_db = st->has_repl && st->repl.stream_db >= 0 ? st->repl.stream_db : 0;
}

int backupCountFile(const char *path, backupCounts *c, sds *err) {
    memset(c, 0, sizeof(*c));
    rdbLoadStats st;
    int ret = backupScanFile(path, countKey, NULL, c, &st, err);
    countFromStats(c, &st);
    return ret;
}

int checkRio(rio *r, backupCounts *out, sds *err) {
    memset(out, 0, sizeof(*out));
    rdbLoadObserver obs = {.aux = countAux,
                           .key = countKey,
                           .ctx = out,
                           .check_only = 1,
                           .skim = 1,
                           .skimmed = countSkimmed};
    rdbLoadStats st;
    memset(&st, 0, sizeof(st));
    rdbLoadSetObserver(&obs);
    int ret = rdbLoadRio(r, 0, &st, err);
    rdbLoadSetObserver(NULL);
    countFromStats(out, &st);
    if (ret != 0 && !*err) *err = sdsnew("the snapshot is truncated");
    return ret == 0 ? 0 : -1;
}
