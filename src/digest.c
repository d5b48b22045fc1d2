/* digest: DEBUG DIGEST and DEBUG DIGEST-VALUE, a SHA1-based fingerprint of
 * the dataset (or of single values) that equals redis-server 7.0.15's for
 * the same data, so tests can compare a cairn dataset with a Redis one, or
 * one cairn with itself before and after a reload.
 *
 * The scheme (it must stay Redis' bit for bit):
 *  - xor(d, data):  d ^= SHA1(data)   -- order-independent accumulation
 *  - mix(d, data):  d = SHA1(d ^ SHA1(data))   -- order-dependent
 *  - a value: mix(its type as a 4-byte big-endian number), then
 *      string: mix(bytes); list: mix(each element, head to tail);
 *      set: xor(each member); hash: per field a fresh 20-byte digest e,
 *      mix(e, field), mix(e, value), xor(e); sorted set: per member a fresh
 *      e, mix(e, member), mix(e, score printed "%.17g"), xor(e);
 *    and if the key has a TTL, xor("!!expire!!") (the time itself is not
 *    part of it, so a reload with the same TTLs keeps the digest).
 *  - a key: a fresh digest, mix(key name), then the value as above, xored
 *    into the database's result; each non-empty database first mixes its
 *    number (4 bytes, big-endian) into the result.
 * Integer-encoded elements (intset, listpack integers, int strings) take
 * part as their decimal text, as everywhere in Redis.
 *
 * SHA1 comes from OpenSSL's libcrypto. Reads only; nothing here expires,
 * touches LRU/LFU or replies except through digestCommand. */
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "util.h"
#include "digest.h"
#include "quicklist.h"
#include "t_set.h"
#include "zset.h"

#include <arpa/inet.h>
#include <openssl/sha.h>
#include <stdio.h>

#define DIGEST_LEN 20

static void digestXor(unsigned char *digest, const void *ptr, size_t len) {
    unsigned char hash[DIGEST_LEN];
    SHA1(ptr, len, hash);
    for (int j = 0; j < DIGEST_LEN; j++) digest[j] ^= hash[j];
}

static void digestMix(unsigned char *digest, const void *ptr, size_t len) {
    digestXor(digest, ptr, len);
    SHA1(digest, DIGEST_LEN, digest);
}

static void digestMixLongLong(unsigned char *digest, long long ll) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), ll);
    digestMix(digest, buf, len);
}

static void digestMixScore(unsigned char *digest, double score) {
    char buf[128];
    int len = snprintf(buf, sizeof(buf), "%.17g", score);
    digestMix(digest, buf, len);
}

static void digestList(unsigned char *digest, robj *o) {
    quicklistIter it;
    quicklistEntry e;
    quicklistInitIterator(&it, o->ptr, QUICKLIST_START_HEAD);
    while (quicklistNext(&it, &e)) {
        if (e.value)
            digestMix(digest, e.value, e.sz);
        else
            digestMixLongLong(digest, e.longval);
    }
    quicklistResetIterator(&it);
}

static void digestSet(unsigned char *digest, robj *o) {
    setTypeIterator si;
    const char *str;
    size_t len;
    long long ll;
    setTypeInitIterator(&si, o);
    while (setTypeNext(&si, &str, &len, &ll)) {
        if (str) {
            digestXor(digest, str, len);
        } else {
            char buf[LONG_STR_SIZE];
            int n = ll2string(buf, sizeof(buf), ll);
            digestXor(digest, buf, n);
        }
    }
    setTypeResetIterator(&si);
}

static void digestZset(unsigned char *digest, robj *o) {
    zsetIter it;
    for (zsetIterInit(&it, o, 0); zsetIterValid(&it); zsetIterNext(&it)) {
        unsigned char ele[DIGEST_LEN] = {0};
        size_t len;
        const char *m = zsetIterMember(&it, &len);
        digestMix(ele, m, len);
        digestMixScore(ele, zsetIterScore(&it));
        digestXor(digest, ele, DIGEST_LEN);
    }
}

/* A listpack hash entry (string or integer) mixed as its text. */
static void digestMixListpackEntry(unsigned char *digest, unsigned char *p) {
    unsigned int slen;
    long long ll;
    unsigned char *s = lpGetValue(p, &slen, &ll);
    if (s)
        digestMix(digest, s, slen);
    else
        digestMixLongLong(digest, ll);
}

static void digestHash(unsigned char *digest, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        for (unsigned char *f = lpFirst(lp); f; f = lpNext(lp, f)) {
            unsigned char *v = lpNext(lp, f);
            unsigned char ele[DIGEST_LEN] = {0};
            digestMixListpackEntry(ele, f);
            digestMixListpackEntry(ele, v);
            digestXor(digest, ele, DIGEST_LEN);
            f = v;
        }
        return;
    }
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, o->ptr);
    while ((de = dictNext(&di)) != NULL) {
        sds field = dictGetKey(de), value = dictGetVal(de);
        unsigned char ele[DIGEST_LEN] = {0};
        digestMix(ele, field, sdslen(field));
        digestMix(ele, value, sdslen(value));
        digestXor(digest, ele, DIGEST_LEN);
    }
    dictResetIterator(&di);
}

/* Mixes value o (with its TTL flag) into digest. */
static void digestValue(unsigned char *digest, robj *o, int has_expire) {
    uint32_t type = htonl(o->type);
    digestMix(digest, &type, sizeof(type));
    switch (o->type) {
        case OBJ_STRING: {
            char buf[LONG_STR_SIZE];
            size_t len;
            const char *s = stringObjectPtr(o, buf, &len);
            digestMix(digest, s, len);
            break;
        }
        case OBJ_LIST:
            digestList(digest, o);
            break;
        case OBJ_SET:
            digestSet(digest, o);
            break;
        case OBJ_ZSET:
            digestZset(digest, o);
            break;
        case OBJ_HASH:
            digestHash(digest, o);
            break;
    }
    if (has_expire) digestXor(digest, "!!expire!!", 10);
}

static void digestDataset(unsigned char *final) {
    memset(final, 0, DIGEST_LEN);
    for (int j = 0; j < cfg.dbnum; j++) {
        serverDb *db = &server.db[j];
        if (dictSize(db->dict) == 0) continue;
        uint32_t dbid = htonl(j);
        digestMix(final, &dbid, sizeof(dbid));
        dictIterator di;
        dictEntry *de;
        dictInitIterator(&di, db->dict);
        while ((de = dictNext(&di)) != NULL) {
            unsigned char digest[DIGEST_LEN] = {0};
            sds key = dictGetKey(de);
            digestMix(digest, key, sdslen(key));
            digestValue(digest, dictGetVal(de), dbGetExpireEntry(db, de) != -1);
            digestXor(final, digest, DIGEST_LEN);
        }
        dictResetIterator(&di);
    }
}

static void digestReply(client *c, const unsigned char *digest) {
    char hex[DIGEST_LEN * 2 + 1];
    for (int j = 0; j < DIGEST_LEN; j++) snprintf(hex + j * 2, 3, "%02x", digest[j]);
    replyStatus(c, hex, DIGEST_LEN * 2);
}

/* DEBUG DIGEST: one status line. DEBUG DIGEST-VALUE key ...: one per key,
 * all zeros for a missing key. Logically expired keys still count, as in
 * Redis (a debug command should see what is stored). */
void digestCommand(client *c) {
    if (c->argc == 2 && !strcasecmp(c->argv[1]->ptr, "digest")) {
        unsigned char digest[DIGEST_LEN];
        digestDataset(digest);
        digestReply(c, digest);
        return;
    }
    replyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        unsigned char digest[DIGEST_LEN] = {0};
        dictEntry *de = dictFind(c->db->dict, c->argv[j]->ptr);
        if (de) digestValue(digest, dictGetVal(de), dbGetExpireEntry(c->db, de) != -1);
        digestReply(c, digest);
    }
}
