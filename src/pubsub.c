/* pubsub: channels, patterns and shard channels, the subscribe commands,
 * PUBLISH and PUBSUB, and the delivery of keyspace notifications.
 *
 * Subscriptions enter through (P|S)SUBSCRIBE and are recorded twice: in
 * the server's dict (name -> subscribers, in subscription order) and in the
 * client's dict (name -> NULL), so PUBLISH finds receivers directly and a
 * disconnect or RESET can unsubscribe everything. Messages leave as push
 * replies (RESP3 '>', RESP2 arrays) written to each receiver; the pubsub
 * client-output-buffer-limit protects the server from subscribers that do
 * not read. Both dicts own their sds keys; subscriber arrays are owned by
 * the server dict. */
#include "client.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "object.h"
#include "pubsub.h"
#include "reply.h"
#include "sds.h"
#include "util.h"
#include "zmalloc.h"

/* Subscribers of one channel or pattern, oldest first. */
typedef struct subscribers {
    client **v;
    int len, cap;
} subscribers;

static void subscribersFree(dict *d, void *val) {
    (void)d;
    subscribers *s = val;
    zfree(s->v);
    zfree(s);
}

static dictType pubsubServerDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare,
                                        dictSdsDestructor, subscribersFree, NULL};
static dictType pubsubClientDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare,
                                        dictSdsDestructor, NULL, NULL};

/* The three kinds share all code; they differ in names and in whether the
 * name is a glob pattern. */
typedef struct pubsubKind {
    const char *subscribe_msg, *unsubscribe_msg;
    int pattern;
    dict **server_dict;                 /* server side */
    size_t client_off;                  /* offset of the client's dict */
} pubsubKind;

static dict *channels, *patterns, *shard_channels;

static pubsubKind kindChannel = {"subscribe", "unsubscribe", 0, &channels,
                                 offsetof(client, pubsub_channels)};
static pubsubKind kindPattern = {"psubscribe", "punsubscribe", 1, &patterns,
                                 offsetof(client, pubsub_patterns)};
static pubsubKind kindShard = {"ssubscribe", "sunsubscribe", 0, &shard_channels,
                               offsetof(client, pubsub_shard_channels)};


static dict **clientDict(client *c, const pubsubKind *k) {
    return (dict **)((char *)c + k->client_off);
}

static unsigned long clientDictSize(dict *d) { return d ? dictSize(d) : 0; }

/* The count Redis reports after (un)subscribing: shard channels are
 * counted on their own, channels and patterns together. */
static long subscriptionCount(client *c, const pubsubKind *k) {
    if (k == &kindShard) return (long)clientDictSize(c->pubsub_shard_channels);
    return (long)(clientDictSize(c->pubsub_channels) + clientDictSize(c->pubsub_patterns));
}

unsigned long pubsubClientSubscriptions(client *c) {
    return clientDictSize(c->pubsub_channels) + clientDictSize(c->pubsub_patterns) +
           clientDictSize(c->pubsub_shard_channels);
}

static void pubsubUpdateFlag(client *c) {
    if (pubsubClientSubscriptions(c)) c->flags |= CLIENT_PUBSUB;
    else c->flags &= ~CLIENT_PUBSUB;
}

static void replySubscription(client *c, const char *kind, const char *name, size_t len,
                              long count) {
    replyPushStart(c);
    replyPushLen(c, 3);
    replyBulkCString(c, kind);
    if (name) replyBulkBuf(c, name, len);
    else replyNull(c);
    replyLongLong(c, count);
    replyPushDone(c);
}

static void pubsubSubscribe(client *c, const pubsubKind *k, robj *name) {
    dict **cd = clientDict(c, k);
    if (!*cd) *cd = dictCreate(&pubsubClientDictType);
    if (dictAdd(*cd, sdsdup(name->ptr), NULL) == DICT_OK) {
        if (!*k->server_dict) *k->server_dict = dictCreate(&pubsubServerDictType);
        dictEntry *de = dictFind(*k->server_dict, name->ptr);
        subscribers *s;
        if (!de) {
            s = zcalloc(sizeof(*s));
            dictAdd(*k->server_dict, sdsdup(name->ptr), s);
        } else {
            s = dictGetVal(de);
        }
        if (s->len == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 4;
            s->v = zrealloc(s->v, sizeof(client *) * s->cap);
        }
        s->v[s->len++] = c;
    }
    c->flags |= CLIENT_PUBSUB;
    replySubscription(c, k->subscribe_msg, name->ptr, sdslen(name->ptr), subscriptionCount(c, k));
}

/* Returns 1 if c was subscribed to name. notify: reply to c. */
static int pubsubUnsubscribe(client *c, const pubsubKind *k, sds name, int notify) {
    dict **cd = clientDict(c, k);
    int found = 0;
    sds held = sdsdup(name); /* name may be the key we are about to free */
    if (*cd && dictDelete(*cd, held) == DICT_OK) {
        found = 1;
        dictEntry *de = dictFind(*k->server_dict, held);
        if (de) {
            subscribers *s = dictGetVal(de);
            for (int j = 0; j < s->len; j++) {
                if (s->v[j] == c) {
                    memmove(s->v + j, s->v + j + 1, sizeof(client *) * (s->len - j - 1));
                    s->len--;
                    break;
                }
            }
            if (s->len == 0) dictDelete(*k->server_dict, held);
        }
    }
    pubsubUpdateFlag(c);
    if (notify)
        replySubscription(c, k->unsubscribe_msg, held, sdslen(held), subscriptionCount(c, k));
    sdsfree(held);
    return found;
}

/* Unsubscribe from everything of one kind; replies one message per name, or
 * a single null-named one when there was nothing. */
static int pubsubUnsubscribeAll(client *c, const pubsubKind *k, int notify) {
    dict **cd = clientDict(c, k);
    int count = 0;
    if (*cd && dictSize(*cd)) {
        /* Collect first: unsubscribing deletes from the dict being walked. */
        unsigned long n = dictSize(*cd), i = 0;
        sds *names = zmalloc(sizeof(sds) * n);
        dictIterator di;
        dictInitIterator(&di, *cd);
        dictEntry *de;
        while ((de = dictNext(&di)) != NULL) names[i++] = sdsdup(dictGetKey(de));
        dictResetIterator(&di);
        for (i = 0; i < n; i++) {
            count += pubsubUnsubscribe(c, k, names[i], notify);
            sdsfree(names[i]);
        }
        zfree(names);
    } else if (notify) {
        replySubscription(c, k->unsubscribe_msg, NULL, 0, subscriptionCount(c, k));
    }
    return count;
}

void pubsubUnsubscribeAllClient(client *c, int notify) {
    pubsubUnsubscribeAll(c, &kindChannel, notify);
    pubsubUnsubscribeAll(c, &kindPattern, notify);
    pubsubUnsubscribeAll(c, &kindShard, notify);
    dict **all[3] = {&c->pubsub_channels, &c->pubsub_patterns, &c->pubsub_shard_channels};
    for (int j = 0; j < 3; j++) {
        if (*all[j]) dictRelease(*all[j]);
        *all[j] = NULL;
    }
}

static void pubsubDeliver(client *t, const char *kind, robj *pattern, robj *channel, robj *msg) {
    replyBegin(t);
    replyPushStart(t);
    replyPushLen(t, pattern ? 4 : 3);
    replyBulkCString(t, kind);
    if (pattern) replyBulk(t, pattern);
    replyBulk(t, channel);
    replyBulk(t, msg);
    replyPushDone(t);
}

static long long pubsubPublishKind(robj *channel, robj *msg, int shard) {
    long long receivers = 0;
    dict *d = shard ? shard_channels : channels;
    dictEntry *de = d ? dictFind(d, channel->ptr) : NULL;
    if (de) {
        subscribers *s = dictGetVal(de);
        for (int j = 0; j < s->len; j++) {
            pubsubDeliver(s->v[j], shard ? "smessage" : "message", NULL, channel, msg);
            receivers++;
        }
    }
    if (!shard && patterns && dictSize(patterns)) {
        dictIterator di;
        dictInitIterator(&di, patterns);
        while ((de = dictNext(&di)) != NULL) {
            sds pat = dictGetKey(de);
            if (!stringmatchlen(pat, sdslen(pat), channel->ptr, sdslen(channel->ptr), 0)) continue;
            robj *patobj = createStringObject(pat, sdslen(pat));
            subscribers *s = dictGetVal(de);
            for (int j = 0; j < s->len; j++) {
                pubsubDeliver(s->v[j], "pmessage", patobj, channel, msg);
                receivers++;
            }
            decrRefCount(patobj);
        }
        dictResetIterator(&di);
    }
    return receivers;
}

long long pubsubPublish(robj *channel, robj *msg) { return pubsubPublishKind(channel, msg, 0); }

/* ---- commands ---- */

void subscribeCommand(client *c) {
    for (int j = 1; j < c->argc; j++) pubsubSubscribe(c, &kindChannel, c->argv[j]);
}

void psubscribeCommand(client *c) {
    for (int j = 1; j < c->argc; j++) pubsubSubscribe(c, &kindPattern, c->argv[j]);
}

void ssubscribeCommand(client *c) {
    for (int j = 1; j < c->argc; j++) pubsubSubscribe(c, &kindShard, c->argv[j]);
}

static void unsubscribeGeneric(client *c, const pubsubKind *k) {
    if (c->argc == 1) pubsubUnsubscribeAll(c, k, 1);
    else
        for (int j = 1; j < c->argc; j++) pubsubUnsubscribe(c, k, c->argv[j]->ptr, 1);
}

void unsubscribeCommand(client *c) { unsubscribeGeneric(c, &kindChannel); }
void punsubscribeCommand(client *c) { unsubscribeGeneric(c, &kindPattern); }
void sunsubscribeCommand(client *c) { unsubscribeGeneric(c, &kindShard); }

void publishCommand(client *c) {
    long long n = pubsubPublishKind(c->argv[1], c->argv[2], 0);
    replyLongLong(c, n);
}

void spublishCommand(client *c) {
    long long n = pubsubPublishKind(c->argv[1], c->argv[2], 1);
    replyLongLong(c, n);
}

static void pubsubReplyChannels(client *c, dict *d, robj *pattern) {
    void *dl = replyDeferredLen(c);
    long n = 0;
    if (d) {
        dictIterator di;
        dictInitIterator(&di, d);
        dictEntry *de;
        while ((de = dictNext(&di)) != NULL) {
            sds name = dictGetKey(de);
            if (pattern && !stringmatchlen(pattern->ptr, sdslen(pattern->ptr), name, sdslen(name), 0))
                continue;
            replyBulkBuf(c, name, sdslen(name));
            n++;
        }
        dictResetIterator(&di);
    }
    replySetDeferredArrayLen(c, dl, n);
}

static void pubsubReplyNumsub(client *c, dict *d) {
    /* A flat array even in RESP3, as Redis 7.0 replies. */
    replyArrayLen(c, (c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        dictEntry *de = d ? dictFind(d, c->argv[j]->ptr) : NULL;
        replyBulk(c, c->argv[j]);
        replyLongLong(c, de ? ((subscribers *)dictGetVal(de))->len : 0);
    }
}

void pubsubCommand(client *c) {
    static const char *help[] = {
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        NULL};
    const char *sub = c->argv[1]->ptr;
    if (c->argc == 2 && !strcasecmp(sub, "help")) {
        replyHelp(c, help);
    } else if (!strcasecmp(sub, "channels") && (c->argc == 2 || c->argc == 3)) {
        pubsubReplyChannels(c, channels, c->argc == 3 ? c->argv[2] : NULL);
    } else if (!strcasecmp(sub, "shardchannels") && (c->argc == 2 || c->argc == 3)) {
        pubsubReplyChannels(c, shard_channels, c->argc == 3 ? c->argv[2] : NULL);
    } else if (!strcasecmp(sub, "numsub") && c->argc >= 2) {
        pubsubReplyNumsub(c, channels);
    } else if (!strcasecmp(sub, "shardnumsub") && c->argc >= 2) {
        pubsubReplyNumsub(c, shard_channels);
    } else if (!strcasecmp(sub, "numpat") && c->argc == 2) {
        /* Redis 7.0 counts distinct patterns, not subscriptions to them. */
        replyLongLong(c, patterns ? (long long)dictSize(patterns) : 0);
    } else {
        replyErrorSubcommand(c);
    }
}

unsigned long pubsubTotalChannels(void) { return channels ? dictSize(channels) : 0; }
unsigned long pubsubTotalPatterns(void) { return patterns ? dictSize(patterns) : 0; }
unsigned long pubsubTotalShardChannels(void) { return shard_channels ? dictSize(shard_channels) : 0; }

/* ---- keyspace notifications ---- */

void notifyKeyspaceEvent(int type, const char *event, robj *key, int dbid) {
    int flags = cfg.notify_keyspace_events;
    if (!(flags & type)) return;
    if (!channels && !patterns) return; /* nobody could be listening */
    char dbbuf[LONG_STR_SIZE];
    int dblen = ll2string(dbbuf, sizeof(dbbuf), dbid);
    robj *eventobj = createStringObject(event, strlen(event));
    if (flags & NOTIFY_KEYSPACE) {
        sds ch = sdsnewlen("__keyspace@", 11);
        ch = sdscatlen(ch, dbbuf, dblen);
        ch = sdscatlen(ch, "__:", 3);
        ch = sdscatlen(ch, key->ptr, sdslen(key->ptr));
        robj *chobj = createObject(OBJ_STRING, ch);
        pubsubPublishKind(chobj, eventobj, 0);
        decrRefCount(chobj);
    }
    if (flags & NOTIFY_KEYEVENT) {
        sds ch = sdsnewlen("__keyevent@", 11);
        ch = sdscatlen(ch, dbbuf, dblen);
        ch = sdscatlen(ch, "__:", 3);
        ch = sdscat(ch, event);
        robj *chobj = createObject(OBJ_STRING, ch);
        pubsubPublishKind(chobj, key, 0);
        decrRefCount(chobj);
    }
    decrRefCount(eventobj);
}
