/* acl: the user table, the rules a user is made of, authentication and the
 * per-command permission check, with Redis 7.0's semantics.
 *
 * A user has flags, SHA-256 password hashes and selectors; selector 0 is
 * the root one (the rules outside parentheses), the others come from
 * "(rule rule ...)". A selector has one bit per command id (numbered by
 * commands.c at start-up), optional allowed first arguments (+select|0),
 * key patterns with read/write permissions and channel patterns. A command
 * is allowed if any selector allows it with all its keys and channels.
 *
 * In: rule strings (ACL SETUSER, the `user` directive, the aclfile),
 * credentials (AUTH, HELLO), commands (aclCheckUserCommand). Out: users and
 * their descriptions (ACL LIST, GETUSER). The table owns every user; a user
 * that is deleted or replaced first disconnects its clients. */
#include "acl.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "log.h"
#include "pubsub.h"
#include "reply.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

static aclUser **users; /* sorted by name (byte order) */
static int nusers;
static aclUser *default_user;
static int cmd_words; /* 64-bit words of a selector's command bitmap */

static const struct {
    int flag;
    const char *name;
} userFlagNames[] = {{ACL_USER_ENABLED, "on"},
                     {ACL_USER_DISABLED, "off"},
                     {ACL_USER_NOPASS, "nopass"},
                     {ACL_USER_SKIP_SANITIZE, "skip-sanitize-payload"},
                     {ACL_USER_SANITIZE, "sanitize-payload"},
                     {0, NULL}};

/* ---- selectors ---- */

static aclSelector *aclSelectorCreate(int flags) {
    aclSelector *s = zcalloc(sizeof(*s));
    s->flags = flags;
    if (cfg.acl_pubsub_default == ACL_PUBSUB_ALLCHANNELS) s->flags |= ACL_SEL_ALLCHANNELS;
    s->cmd_bits = zcalloc(sizeof(uint64_t) * cmd_words);
    return s;
}

static void aclResetFirstArgsFor(aclSelector *s, int id) {
    if (!s->firstargs || !s->firstargs[id]) return;
    for (sds *p = s->firstargs[id]; *p; p++) sdsfree(*p);
    zfree(s->firstargs[id]);
    s->firstargs[id] = NULL;
}

static void aclResetFirstArgs(aclSelector *s) {
    if (!s->firstargs) return;
    for (int id = 0; id < cmd_words * 64; id++) aclResetFirstArgsFor(s, id);
    zfree(s->firstargs);
    s->firstargs = NULL;
}

static void aclClearPatterns(aclSelector *s) {
    for (int j = 0; j < s->npatterns; j++) sdsfree(s->patterns[j].pattern);
    zfree(s->patterns);
    s->patterns = NULL;
    s->npatterns = 0;
}

static void aclClearChannels(aclSelector *s) {
    for (int j = 0; j < s->nchannels; j++) sdsfree(s->channels[j]);
    zfree(s->channels);
    s->channels = NULL;
    s->nchannels = 0;
}

static void aclSelectorFree(aclSelector *s) {
    aclClearPatterns(s);
    aclClearChannels(s);
    aclResetFirstArgs(s);
    zfree(s->cmd_bits);
    zfree(s);
}

static aclSelector *aclSelectorDup(aclSelector *src) {
    aclSelector *s = zcalloc(sizeof(*s));
    s->flags = src->flags;
    s->cmd_bits = zmalloc(sizeof(uint64_t) * cmd_words);
    memcpy(s->cmd_bits, src->cmd_bits, sizeof(uint64_t) * cmd_words);
    if (src->npatterns) {
        s->patterns = zmalloc(sizeof(aclKeyPattern) * src->npatterns);
        for (int j = 0; j < src->npatterns; j++) {
            s->patterns[j].pattern = sdsdup(src->patterns[j].pattern);
            s->patterns[j].perms = src->patterns[j].perms;
        }
        s->npatterns = src->npatterns;
    }
    if (src->nchannels) {
        s->channels = zmalloc(sizeof(sds) * src->nchannels);
        for (int j = 0; j < src->nchannels; j++) s->channels[j] = sdsdup(src->channels[j]);
        s->nchannels = src->nchannels;
    }
    if (src->firstargs) {
        s->firstargs = zcalloc(sizeof(sds *) * cmd_words * 64);
        for (int id = 0; id < cmd_words * 64; id++) {
            if (!src->firstargs[id]) continue;
            int n = 0;
            while (src->firstargs[id][n]) n++;
            s->firstargs[id] = zcalloc(sizeof(sds) * (n + 1));
            for (int j = 0; j < n; j++) s->firstargs[id][j] = sdsdup(src->firstargs[id][j]);
        }
    }
    return s;
}

static void aclSetBit(aclSelector *s, int id, int on) {
    if (on) {
        s->cmd_bits[id / 64] |= 1ULL << (id % 64);
    } else {
        s->cmd_bits[id / 64] &= ~(1ULL << (id % 64));
        s->flags &= ~ACL_SEL_ALLCOMMANDS;
    }
}

static int aclGetBit(aclSelector *s, int id) {
    return (s->cmd_bits[id / 64] >> (id % 64)) & 1;
}

/* A command and, for a container, all its subcommands. */
static void aclChangePerm(aclSelector *s, cairnCommand *cmd, int on) {
    aclSetBit(s, cmd->id, on);
    aclResetFirstArgsFor(s, cmd->id);
    for (cairnCommand *sub = cmd->subcommands; sub && sub->name; sub++) aclSetBit(s, sub->id, on);
}

static int aclCategoryFlag(const char *name, uint64_t *flag) {
    const char *cname;
    uint64_t f;
    for (int j = 0; commandAclCategoryAt(j, &f, &cname); j++)
        if (!strcasecmp(name, cname)) {
            *flag = f;
            return 1;
        }
    return 0;
}

static void aclChangeCategory(aclSelector *s, uint64_t flag, int on) {
    for (cairnCommand *c = server.commands_list; c->name; c++) {
        if (commandAclCategories(c) & flag) aclChangePerm(s, c, on);
        for (cairnCommand *sub = c->subcommands; sub && sub->name; sub++)
            if (commandAclCategories(sub) & flag) aclChangePerm(s, sub, on);
    }
}

/* Commands by their original names: rename-command does not change ACL rules. */
static cairnCommand *aclLookupCommand(const char *name) {
    const char *bar = strchr(name, '|');
    size_t plen = bar ? (size_t)(bar - name) : strlen(name);
    for (cairnCommand *c = server.commands_list; c->name; c++) {
        if (strlen(c->name) != plen || strncasecmp(c->name, name, plen)) continue;
        if (!bar) return c;
        for (cairnCommand *sub = c->subcommands; sub && sub->name; sub++)
            if (!strcasecmp(sub->name, bar + 1)) return sub;
        return NULL;
    }
    return NULL;
}

static void aclAddFirstArg(aclSelector *s, int id, const char *arg) {
    if (!s->firstargs) s->firstargs = zcalloc(sizeof(sds *) * cmd_words * 64);
    int n = 0;
    if (s->firstargs[id]) {
        while (s->firstargs[id][n]) {
            if (!strcasecmp(s->firstargs[id][n], arg)) return;
            n++;
        }
    }
    s->firstargs[id] = zrealloc(s->firstargs[id], sizeof(sds) * (n + 2));
    s->firstargs[id][n] = sdsnew(arg);
    s->firstargs[id][n + 1] = NULL;
}

static int aclSelectorSet(aclSelector *s, const char *op, size_t oplen) {
    if (!strcasecmp(op, "allkeys") || !strcmp(op, "~*")) {
        s->flags |= ACL_SEL_ALLKEYS;
        aclClearPatterns(s);
    } else if (!strcasecmp(op, "resetkeys")) {
        s->flags &= ~ACL_SEL_ALLKEYS;
        aclClearPatterns(s);
    } else if (!strcasecmp(op, "allchannels") || !strcmp(op, "&*")) {
        s->flags |= ACL_SEL_ALLCHANNELS;
        aclClearChannels(s);
    } else if (!strcasecmp(op, "resetchannels")) {
        s->flags &= ~ACL_SEL_ALLCHANNELS;
        aclClearChannels(s);
    } else if (!strcasecmp(op, "allcommands") || !strcasecmp(op, "+@all")) {
        memset(s->cmd_bits, 0xff, sizeof(uint64_t) * cmd_words);
        s->flags |= ACL_SEL_ALLCOMMANDS | ACL_SEL_FUTURE;
        aclResetFirstArgs(s);
    } else if (!strcasecmp(op, "nocommands") || !strcasecmp(op, "-@all")) {
        memset(s->cmd_bits, 0, sizeof(uint64_t) * cmd_words);
        s->flags &= ~(ACL_SEL_ALLCOMMANDS | ACL_SEL_FUTURE);
        aclResetFirstArgs(s);
    } else if (op[0] == '~' || op[0] == '%') {
        if (s->flags & ACL_SEL_ALLKEYS) {
            errno = EEXIST;
            return -1;
        }
        int perms = 0;
        size_t off = 1;
        if (op[0] == '%') {
            for (; off < oplen; off++) {
                int ch = toupper((unsigned char)op[off]);
                if (ch == 'R' && !(perms & ACL_PERM_READ)) {
                    perms |= ACL_PERM_READ;
                } else if (ch == 'W' && !(perms & ACL_PERM_WRITE)) {
                    perms |= ACL_PERM_WRITE;
                } else if (op[off] == '~') {
                    off++;
                    break;
                } else {
                    errno = EINVAL;
                    return -1;
                }
            }
            if (!perms) {
                errno = EINVAL;
                return -1;
            }
        } else {
            perms = ACL_PERM_ALL;
        }
        if (oplen - off == 1 && op[off] == '*' && perms == ACL_PERM_ALL) {
            s->flags |= ACL_SEL_ALLKEYS;
            aclClearPatterns(s);
            return 0;
        }
        for (int j = 0; j < s->npatterns; j++) {
            if (sdslen(s->patterns[j].pattern) == oplen - off &&
                !memcmp(s->patterns[j].pattern, op + off, oplen - off)) {
                s->patterns[j].perms |= perms;
                return 0;
            }
        }
        s->patterns = zrealloc(s->patterns, sizeof(aclKeyPattern) * (s->npatterns + 1));
        s->patterns[s->npatterns].pattern = sdsnewlen(op + off, oplen - off);
        s->patterns[s->npatterns].perms = perms;
        s->npatterns++;
    } else if (op[0] == '&') {
        if (s->flags & ACL_SEL_ALLCHANNELS) {
            errno = EISDIR;
            return -1;
        }
        for (int j = 0; j < s->nchannels; j++)
            if (sdslen(s->channels[j]) == oplen - 1 && !memcmp(s->channels[j], op + 1, oplen - 1))
                return 0;
        s->channels = zrealloc(s->channels, sizeof(sds) * (s->nchannels + 1));
        s->channels[s->nchannels++] = sdsnewlen(op + 1, oplen - 1);
    } else if (op[0] == '+' && op[1] != '@') {
        const char *bar = strrchr(op, '|');
        if (!bar) {
            cairnCommand *cmd = aclLookupCommand(op + 1);
            if (!cmd) {
                errno = ENOENT;
                return -1;
            }
            aclChangePerm(s, cmd, 1);
            return 0;
        }
        sds parent = sdsnewlen(op + 1, bar - op - 1);
        cairnCommand *cmd = aclLookupCommand(parent);
        sdsfree(parent);
        if (!cmd) {
            errno = ENOENT;
            return -1;
        }
        if (cmd->parent) {
            errno = ECHILD;
            return -1;
        }
        if (!bar[1]) {
            errno = EINVAL;
            return -1;
        }
        if (cmd->subcommands) {
            cairnCommand *sub = aclLookupCommand(op + 1);
            if (!sub) {
                errno = ENOENT;
                return -1;
            }
            aclChangePerm(s, sub, 1);
        } else {
            serverLog(LL_WARNING,
                      "Deprecation warning: Allowing a first arg of an otherwise blocked command "
                      "is a misuse of ACL and may get disabled in the future (offender: +%s)",
                      op + 1);
            aclAddFirstArg(s, cmd->id, bar + 1);
        }
    } else if (op[0] == '-' && op[1] != '@') {
        cairnCommand *cmd = aclLookupCommand(op + 1);
        if (!cmd) {
            errno = ENOENT;
            return -1;
        }
        aclChangePerm(s, cmd, 0);
    } else if ((op[0] == '+' || op[0] == '-') && op[1] == '@') {
        uint64_t flag;
        if (!aclCategoryFlag(op + 2, &flag)) {
            errno = ENOENT;
            return -1;
        }
        aclChangeCategory(s, flag, op[0] == '+');
    } else {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

/* ---- users ---- */

static void aclRefreshAllpass(aclUser *u) {
    int all = ACL_SEL_ALLCOMMANDS | ACL_SEL_ALLKEYS | ACL_SEL_ALLCHANNELS;
    u->allpass = (u->selectors[0]->flags & all) == all;
}

aclUser *aclCreateUnlinkedUser(void) {
    aclUser *u = zcalloc(sizeof(*u));
    u->name = sdsempty();
    u->flags = ACL_USER_DISABLED;
    u->selectors = zmalloc(sizeof(aclSelector *));
    u->selectors[0] = aclSelectorCreate(ACL_SEL_ROOT);
    u->nselectors = 1;
    aclRefreshAllpass(u);
    return u;
}

static void aclClearPasswords(aclUser *u) {
    for (int j = 0; j < u->npasswords; j++) sdsfree(u->passwords[j]);
    zfree(u->passwords);
    u->passwords = NULL;
    u->npasswords = 0;
}

static void aclClearSelectors(aclUser *u, int keep_root) {
    for (int j = keep_root ? 1 : 0; j < u->nselectors; j++) aclSelectorFree(u->selectors[j]);
    u->nselectors = keep_root ? 1 : 0;
}

void aclFreeUser(aclUser *u) {
    sdsfree(u->name);
    aclClearPasswords(u);
    aclClearSelectors(u, 0);
    zfree(u->selectors);
    zfree(u);
}

/* Everything but the name. */
void aclCopyUser(aclUser *dst, aclUser *src) {
    aclClearPasswords(dst);
    aclClearSelectors(dst, 0);
    dst->flags = src->flags;
    if (src->npasswords) {
        dst->passwords = zmalloc(sizeof(sds) * src->npasswords);
        for (int j = 0; j < src->npasswords; j++) dst->passwords[j] = sdsdup(src->passwords[j]);
        dst->npasswords = src->npasswords;
    }
    dst->selectors = zrealloc(dst->selectors, sizeof(aclSelector *) * src->nselectors);
    for (int j = 0; j < src->nselectors; j++) dst->selectors[j] = aclSelectorDup(src->selectors[j]);
    dst->nselectors = src->nselectors;
    dst->allpass = src->allpass;
}

static int aclUserCmp(const char *a, size_t alen, sds b) {
    size_t blen = sdslen(b);
    int r = memcmp(a, b, alen < blen ? alen : blen);
    if (r) return r;
    return alen < blen ? -1 : alen > blen;
}

/* Index of the user, or -(insertion point) - 1. */
static int aclFindIndex(const char *name, size_t len) {
    int lo = 0, hi = nusers - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int r = aclUserCmp(name, len, users[mid]->name);
        if (!r) return mid;
        if (r < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -lo - 1;
}

aclUser *aclLookupUser(const char *name, size_t len) {
    int i = aclFindIndex(name, len);
    return i >= 0 ? users[i] : NULL;
}

aclUser *aclCreateUser(const char *name, size_t len) {
    int i = aclFindIndex(name, len);
    if (i >= 0) return NULL;
    i = -i - 1;
    aclUser *u = aclCreateUnlinkedUser();
    sdsfree(u->name);
    u->name = sdsnewlen(name, len);
    users = zrealloc(users, sizeof(aclUser *) * (nusers + 1));
    memmove(users + i + 1, users + i, sizeof(aclUser *) * (nusers - i));
    users[i] = u;
    nusers++;
    return u;
}

aclUser **aclUsers(int *count) {
    *count = nusers;
    return users;
}

aclUser *aclDefaultUser(void) {
    return default_user;
}

int aclUsernameValid(const char *name, size_t len) {
    for (size_t j = 0; j < len; j++)
        if (name[j] == ' ' || name[j] == '\0') return 0;
    return 1;
}

static void aclHashPassword(const char *pw, size_t len, char out[65]) {
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_Digest(pw, len, md, &mdlen, EVP_sha256(), NULL);
    static const char hex[] = "0123456789abcdef";
    for (int j = 0; j < 32; j++) {
        out[j * 2] = hex[md[j] >> 4];
        out[j * 2 + 1] = hex[md[j] & 15];
    }
    out[64] = '\0';
}

static int aclHashValid(const char *h, size_t len) {
    if (len != 64) return 0;
    for (size_t j = 0; j < len; j++)
        if (!((h[j] >= '0' && h[j] <= '9') || (h[j] >= 'a' && h[j] <= 'f'))) return 0;
    return 1;
}

static int aclPasswordIndex(aclUser *u, const char *hash) {
    for (int j = 0; j < u->npasswords; j++)
        if (!strcmp(u->passwords[j], hash)) return j;
    return -1;
}

static void aclAddPassword(aclUser *u, const char *hash) {
    if (aclPasswordIndex(u, hash) >= 0) return;
    u->passwords = zrealloc(u->passwords, sizeof(sds) * (u->npasswords + 1));
    u->passwords[u->npasswords++] = sdsnew(hash);
}

static int aclRemovePassword(aclUser *u, const char *hash) {
    int i = aclPasswordIndex(u, hash);
    if (i < 0) return 0;
    sdsfree(u->passwords[i]);
    memmove(u->passwords + i, u->passwords + i + 1, sizeof(sds) * (u->npasswords - i - 1));
    u->npasswords--;
    return 1;
}

/* "(rule rule ...)": a new selector, added only if every rule applies. */
static int aclAddSelectorFromOps(aclUser *u, const char *op, size_t oplen) {
    aclSelector *s = aclSelectorCreate(0);
    int n = 0;
    sds *parts = sdssplitlen(op + 1, (ssize_t)oplen - 2, " ", 1, &n);
    int ok = 1;
    for (int j = 0; j < n && ok; j++) {
        if (!sdslen(parts[j])) continue;
        if (aclSelectorSet(s, parts[j], sdslen(parts[j])) == -1) ok = 0;
    }
    sdsfreesplitres(parts, n);
    if (!ok) {
        int saved = errno;
        aclSelectorFree(s);
        errno = saved;
        return -1;
    }
    u->selectors = zrealloc(u->selectors, sizeof(aclSelector *) * (u->nselectors + 1));
    u->selectors[u->nselectors++] = s;
    return 0;
}

static int aclSetUserOp(aclUser *u, const char *op, size_t oplen) {
    char hash[65];
    if (!strcasecmp(op, "on")) {
        u->flags = (u->flags | ACL_USER_ENABLED) & ~ACL_USER_DISABLED;
    } else if (!strcasecmp(op, "off")) {
        u->flags = (u->flags | ACL_USER_DISABLED) & ~ACL_USER_ENABLED;
    } else if (!strcasecmp(op, "skip-sanitize-payload")) {
        u->flags = (u->flags | ACL_USER_SKIP_SANITIZE) & ~ACL_USER_SANITIZE;
    } else if (!strcasecmp(op, "sanitize-payload")) {
        u->flags = (u->flags | ACL_USER_SANITIZE) & ~ACL_USER_SKIP_SANITIZE;
    } else if (!strcasecmp(op, "nopass")) {
        u->flags |= ACL_USER_NOPASS;
        aclClearPasswords(u);
    } else if (!strcasecmp(op, "resetpass")) {
        u->flags &= ~ACL_USER_NOPASS;
        aclClearPasswords(u);
    } else if (op[0] == '>' || op[0] == '<') {
        aclHashPassword(op + 1, oplen - 1, hash);
        if (op[0] == '>') {
            aclAddPassword(u, hash);
        } else if (!aclRemovePassword(u, hash)) {
            errno = ENODEV;
            return -1;
        }
        u->flags &= ~ACL_USER_NOPASS;
    } else if (op[0] == '#' || op[0] == '!') {
        if (!aclHashValid(op + 1, oplen - 1)) {
            errno = EBADMSG;
            return -1;
        }
        if (op[0] == '#') {
            aclAddPassword(u, op + 1);
        } else if (!aclRemovePassword(u, op + 1)) {
            errno = ENODEV;
            return -1;
        }
        u->flags &= ~ACL_USER_NOPASS;
    } else if (!strcasecmp(op, "clearselectors")) {
        aclClearSelectors(u, 1);
    } else if (!strcasecmp(op, "reset")) {
        aclSetUserOp(u, "resetpass", 9);
        aclSetUserOp(u, "resetkeys", 9);
        aclSetUserOp(u, "resetchannels", 13);
        if (cfg.acl_pubsub_default == ACL_PUBSUB_ALLCHANNELS) aclSetUserOp(u, "allchannels", 11);
        aclSetUserOp(u, "off", 3);
        aclSetUserOp(u, "sanitize-payload", 16);
        aclSetUserOp(u, "clearselectors", 14);
        aclSetUserOp(u, "-@all", 5);
    } else if (oplen >= 2 && op[0] == '(' && op[oplen - 1] == ')') {
        return aclAddSelectorFromOps(u, op, oplen);
    } else {
        return aclSelectorSet(u->selectors[0], op, oplen);
    }
    return 0;
}

int aclSetUser(aclUser *u, const char *op, ssize_t oplen) {
    if (oplen < 0) oplen = (ssize_t)strlen(op);
    if (oplen == 0) return 0;
    int r = aclSetUserOp(u, op, (size_t)oplen);
    aclRefreshAllpass(u);
    return r;
}

const char *aclSetUserErrorString(int err) {
    switch (err) {
        case ENOENT:
            return "Unknown command or category name in ACL";
        case EINVAL:
            return "Syntax error";
        case EEXIST:
            return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and "
                   "does "
                   "not have any effect. Try 'resetkeys' to start with an empty list of patterns";
        case EISDIR:
            return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid "
                   "and "
                   "does not have any effect. Try 'resetchannels' to start with an empty list of "
                   "channels";
        case ENODEV:
            return "The password you are trying to remove from the user does not exist";
        case EBADMSG:
            return "The password hash must be exactly 64 characters and contain only lowercase "
                   "hexadecimal characters";
        case EALREADY:
            return "Duplicate user found. A user can only be defined once in config files";
        case ECHILD:
            return "Allowing first-arg of a subcommand is not supported";
        default:
            return "Unknown error";
    }
}

/* Joins "(a" "b)" into one "(a b)" argument as Redis does; the caller
 * frees *merged with sdsfreesplitres. 0 ok, -1 with *err. */
int aclMergeSelectorArgs(sds *argv, int argc, sds **merged, int *mergedc, sds *err) {
    sds *out = zmalloc(sizeof(sds) * (argc ? argc : 1));
    int n = 0;
    sds acc = NULL;
    for (int j = 0; j < argc; j++) {
        sds a = argv[j];
        size_t len = sdslen(a);
        if (acc) {
            acc = sdscatlen(acc, " ", 1);
            acc = sdscatsds(acc, a);
            if (len && a[len - 1] == ')') {
                out[n++] = acc;
                acc = NULL;
            }
        } else if (len && a[0] == '(' && a[len - 1] != ')') {
            acc = sdsdup(a);
        } else {
            out[n++] = sdsdup(a);
        }
    }
    if (acc) {
        *err = sdscatprintf(sdsempty(), "Unmatched parenthesis in acl selector starting at '%s'.",
                            acc);
        sdsfree(acc);
        sdsfreesplitres(out, n);
        return -1;
    }
    *merged = out;
    *mergedc = n;
    return 0;
}

/* ---- descriptions ---- */

static sds aclCatPattern(sds s, aclKeyPattern *p) {
    if (p->perms == ACL_PERM_ALL)
        s = sdscatlen(s, "~", 1);
    else if (p->perms == ACL_PERM_READ)
        s = sdscatlen(s, "%R~", 3);
    else if (p->perms == ACL_PERM_WRITE)
        s = sdscatlen(s, "%W~", 3);
    else
        s = sdscatlen(s, "%~", 2);
    return sdscatsds(s, p->pattern);
}

static void aclCountCategory(aclSelector *s, uint64_t flag, unsigned long *on, unsigned long *off) {
    for (cairnCommand *c = server.commands_list; c->name; c++) {
        if (commandAclCategories(c) & flag) aclGetBit(s, c->id) ? (*on)++ : (*off)++;
        for (cairnCommand *sub = c->subcommands; sub && sub->name; sub++)
            if (commandAclCategories(sub) & flag) aclGetBit(s, sub->id) ? (*on)++ : (*off)++;
    }
}

static sds aclDescribeSingle(sds r, aclSelector *s, aclSelector *fake, cairnCommand *cmd) {
    int bit = aclGetBit(s, cmd->id);
    if (bit != aclGetBit(fake, cmd->id)) {
        r = sdscatprintf(r, "%c%s ", bit ? '+' : '-', cmd->fullname);
        aclChangePerm(fake, cmd, bit);
    }
    for (cairnCommand *sub = cmd->subcommands; sub && sub->name; sub++)
        r = aclDescribeSingle(r, s, fake, sub);
    if (!bit && s->firstargs && s->firstargs[cmd->id])
        for (sds *fa = s->firstargs[cmd->id]; *fa; fa++)
            r = sdscatprintf(r, "+%s|%s ", cmd->fullname, *fa);
    return r;
}

/* Redis 7.0 describes a selector's commands from its bitmap, not from the
 * rules given: +@all or -@all, then greedily the category that best fits
 * what is left (more commands agreeing than differing, fewest differing),
 * then the single commands, subcommands and first args still different.
 * Redis walks a hash table for the last step, so its order of single
 * commands varies between runs; here it is the table's order. */
sds aclDescribeSelectorCommands(aclSelector *s) {
    int additive = !(s->flags & ACL_SEL_FUTURE);
    sds r = sdsnew(additive ? "-@all " : "+@all ");
    aclSelector *fake = aclSelectorCreate(0);
    aclSelector *temp = aclSelectorCreate(0);
    if (!additive) memset(fake->cmd_bits, 0xff, sizeof(uint64_t) * cmd_words);
    memcpy(temp->cmd_bits, s->cmd_bits, sizeof(uint64_t) * cmd_words);
    char applied[64] = {0};
    for (;;) {
        int best = -1;
        unsigned long mindiff = (unsigned long)-1, maxsame = 0;
        uint64_t f;
        const char *name;
        for (int j = 0; commandAclCategoryAt(j, &f, &name); j++) {
            if (applied[j]) continue;
            unsigned long on = 0, off = 0;
            aclCountCategory(temp, f, &on, &off);
            unsigned long diff = additive ? off : on, same = additive ? on : off;
            if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
                best = j;
                mindiff = diff;
                maxsame = same;
            }
        }
        if (best == -1) break;
        commandAclCategoryAt(best, &f, &name);
        aclChangeCategory(fake, f, additive);
        aclChangeCategory(temp, f, !additive);
        r = sdscatprintf(r, "%c@%s ", additive ? '+' : '-', name);
        applied[best] = 1;
    }
    for (cairnCommand *c = server.commands_list; c->name; c++) r = aclDescribeSingle(r, s, fake, c);
    aclSelectorFree(fake);
    aclSelectorFree(temp);
    sdsrange(r, 0, -2);
    return r;
}

sds aclDescribeSelectorKeys(aclSelector *s) {
    if (s->flags & ACL_SEL_ALLKEYS) return sdsnew("~*");
    sds r = sdsempty();
    for (int j = 0; j < s->npatterns; j++) {
        if (j) r = sdscatlen(r, " ", 1);
        r = aclCatPattern(r, &s->patterns[j]);
    }
    return r;
}

sds aclDescribeSelectorChannels(aclSelector *s) {
    if (s->flags & ACL_SEL_ALLCHANNELS) return sdsnew("&*");
    sds r = sdsempty();
    for (int j = 0; j < s->nchannels; j++)
        r = sdscatprintf(r, "%s&%s", j ? " " : "", s->channels[j]);
    return r;
}

static sds aclDescribeSelector(aclSelector *s) {
    sds r = sdsempty();
    if (s->flags & ACL_SEL_ALLKEYS) {
        r = sdscat(r, "~* ");
    } else {
        for (int j = 0; j < s->npatterns; j++) {
            r = aclCatPattern(r, &s->patterns[j]);
            r = sdscatlen(r, " ", 1);
        }
    }
    if (s->flags & ACL_SEL_ALLCHANNELS) {
        r = sdscat(r, "&* ");
    } else {
        r = sdscat(r, "resetchannels ");
        for (int j = 0; j < s->nchannels; j++) r = sdscatprintf(r, "&%s ", s->channels[j]);
    }
    sds cmds = aclDescribeSelectorCommands(s);
    r = sdscatsds(r, cmds);
    sdsfree(cmds);
    return r;
}

sds aclDescribeUser(aclUser *u) {
    sds r = sdsempty();
    for (int j = 0; userFlagNames[j].name; j++)
        if (u->flags & userFlagNames[j].flag) r = sdscatprintf(r, "%s ", userFlagNames[j].name);
    for (int j = 0; j < u->npasswords; j++) r = sdscatprintf(r, "#%s ", u->passwords[j]);
    for (int j = 0; j < u->nselectors; j++) {
        sds d = aclDescribeSelector(u->selectors[j]);
        if (j == 0)
            r = sdscatsds(r, d);
        else
            r = sdscatprintf(r, " (%s)", d);
        sdsfree(d);
    }
    return r;
}

/* ---- clients of changed users ---- */

static void aclDisconnect(client *c) {
    c->user = default_user;
    c->flags &= ~CLIENT_AUTHENTICATED;
    if (c == server.current_client)
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    else
        clientFreeAsync(c);
}

void aclKillUserClients(aclUser *u) {
    for (client *c = server.clients; c; c = c->next)
        if (c->user == u && !(c->flags & CLIENT_CLOSE_ASAP)) aclDisconnect(c);
}

void aclDeleteUser(aclUser *u) {
    int i = aclFindIndex(u->name, sdslen(u->name));
    if (i >= 0) {
        memmove(users + i, users + i + 1, sizeof(aclUser *) * (nusers - i - 1));
        nusers--;
    }
    aclKillUserClients(u);
    aclFreeUser(u);
}

/* ACL LOAD: the new table replaces the old one. The default user object
 * stays (clients keep pointing at it) with the new rules; every other old
 * user's clients are disconnected, as Redis does. Takes the array. */
void aclReplaceUsers(aclUser **nu, int count) {
    aclUser *newdef = NULL;
    for (int j = 0; j < count; j++)
        if (!strcmp(nu[j]->name, "default")) {
            newdef = nu[j];
            nu[j] = default_user;
        }
    aclUser **old = users;
    int nold = nusers;
    users = nu;
    nusers = count;
    if (newdef) {
        aclCopyUser(default_user, newdef);
        aclFreeUser(newdef);
    } else {
        /* a file without "default": it is back to its initial rules */
        aclUser *fresh = aclCreateUnlinkedUser();
        aclSetUser(fresh, "+@all", -1);
        aclSetUser(fresh, "~*", -1);
        aclSetUser(fresh, "&*", -1);
        aclSetUser(fresh, "on", -1);
        aclSetUser(fresh, "nopass", -1);
        aclCopyUser(default_user, fresh);
        aclFreeUser(fresh);
        int i = aclFindIndex("default", 7);
        i = -i - 1;
        users = zrealloc(users, sizeof(aclUser *) * (nusers + 1));
        memmove(users + i + 1, users + i, sizeof(aclUser *) * (nusers - i));
        users[i] = default_user;
        nusers++;
    }
    for (int j = 0; j < nold; j++) {
        if (old[j] == default_user) continue;
        aclKillUserClients(old[j]);
        aclFreeUser(old[j]);
    }
    zfree(old);
}

static int aclChannelAllowed(aclSelector *s, const char *ch, size_t len, int is_pattern) {
    if (s->flags & ACL_SEL_ALLCHANNELS) return 1;
    for (int j = 0; j < s->nchannels; j++) {
        sds p = s->channels[j];
        if (is_pattern ? (sdslen(p) == len && !memcmp(p, ch, len))
                       : stringmatchlen(p, (int)sdslen(p), ch, (int)len, 0))
            return 1;
    }
    return 0;
}

static int aclUserChannelAllowed(aclUser *u, const char *ch, size_t len, int is_pattern) {
    for (int j = 0; j < u->nselectors; j++)
        if (aclChannelAllowed(u->selectors[j], ch, len, is_pattern)) return 1;
    return 0;
}

static int aclSubscriptionsAllowed(aclUser *u, dict *d, int is_pattern) {
    if (!d) return 1;
    dictIterator *it = dictGetIterator(d);
    dictEntry *de;
    int ok = 1;
    while (ok && (de = dictNext(it)) != NULL) {
        sds ch = dictGetKey(de); /* pubsub.c keys clients' dicts by sds */
        ok = aclUserChannelAllowed(u, ch, sdslen(ch), is_pattern);
    }
    dictReleaseIterator(it);
    return ok;
}

/* A SETUSER that takes channels away disconnects the user's subscribers
 * that hold a channel or pattern no longer allowed. */
void aclKillPubsubClientsIfNeeded(aclUser *newu, aclUser *old) {
    for (client *c = server.clients; c; c = c->next) {
        if (c->user != old || !(c->flags & CLIENT_PUBSUB) || (c->flags & CLIENT_CLOSE_ASAP))
            continue;
        if (!aclSubscriptionsAllowed(newu, c->pubsub_channels, 0) ||
            !aclSubscriptionsAllowed(newu, c->pubsub_shard_channels, 0) ||
            !aclSubscriptionsAllowed(newu, c->pubsub_patterns, 1))
            aclDisconnect(c);
    }
}

/* ---- authentication ---- */

void aclUpdateDefaultPassword(const char *pass) {
    aclSetUser(default_user, "resetpass", -1);
    if (pass) {
        sds op = sdscatlen(sdsnew(">"), pass, sdslen((sds)pass));
        aclSetUser(default_user, op, sdslen(op));
        sdsfree(op);
    } else {
        aclSetUser(default_user, "nopass", -1);
    }
}

static int aclApplyRequirepass(const char **err) {
    (void)err;
    aclUpdateDefaultPassword(cfg.requirepass);
    return 1;
}

int aclClientStartsAuthenticated(void) {
    return (default_user->flags & ACL_USER_NOPASS) && !(default_user->flags & ACL_USER_DISABLED);
}

int aclAuthRequired(client *c) {
    return !aclClientStartsAuthenticated() && !(c->flags & CLIENT_AUTHENTICATED);
}

static int aclCheckCredentials(aclUser *u, robj *password) {
    if (!u || (u->flags & ACL_USER_DISABLED)) return 0;
    if (u->flags & ACL_USER_NOPASS) return 1;
    char hash[65];
    aclHashPassword(password->ptr, sdslen(password->ptr), hash);
    int ok = 0;
    for (int j = 0; j < u->npasswords; j++) {
        /* compare every byte so the time does not tell how much matched */
        unsigned char diff = 0;
        for (int k = 0; k < 64; k++) diff |= (unsigned char)(hash[k] ^ u->passwords[j][k]);
        ok |= diff == 0;
    }
    return ok;
}

int aclAuthenticate(client *c, robj *username, robj *password) {
    aclUser *u = aclLookupUser(username->ptr, sdslen(username->ptr));
    if (aclCheckCredentials(u, password)) {
        c->user = u;
        c->flags |= CLIENT_AUTHENTICATED;
        return 1;
    }
    aclLogAdd(c, ACL_DENIED_AUTH,
              (c->flags & CLIENT_MULTI) ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL, 0,
              username->ptr, NULL);
    return 0;
}

/* ---- the check ---- */

static int aclKeyAllowed(aclSelector *s, const char *key, size_t len, unsigned keyflags) {
    if (s->flags & ACL_SEL_ALLKEYS) return 1;
    int need = 0;
    if (keyflags & CMD_KEY_ACCESS) need |= ACL_PERM_READ;
    if (keyflags & (CMD_KEY_INSERT | CMD_KEY_DELETE | CMD_KEY_UPDATE)) need |= ACL_PERM_WRITE;
    for (int j = 0; j < s->npatterns; j++) {
        aclKeyPattern *p = &s->patterns[j];
        if ((p->perms & need) != need) continue;
        if (stringmatchlen(p->pattern, (int)sdslen(p->pattern), key, (int)len, 0)) return 1;
    }
    return 0;
}

/* The keys of one command, found once however many selectors look. */
typedef struct aclKeyCache {
    int init, n;
    cmdKeyRef *keys;
    cmdKeyRef small[8];
} aclKeyCache;

static void aclChannelArgs(cairnCommand *cmd, int argc, int *first, int *last, int *pattern) {
    commandProc *p = cmd->proc;
    *first = 1;
    *last = 0;
    *pattern = 0;
    if (p == publishCommand || p == spublishCommand)
        *last = 1;
    else if (p == subscribeCommand || p == ssubscribeCommand)
        *last = argc - 1;
    else if (p == psubscribeCommand)
        *last = argc - 1, *pattern = 1;
}

static int aclSelectorCheck(aclSelector *s, cairnCommand *cmd, robj **argv, int argc, int *argpos,
                            aclKeyCache *kc) {
    if (!(s->flags & ACL_SEL_ALLCOMMANDS) && !(cmd->flags & CMD_NO_AUTH) &&
        !aclGetBit(s, cmd->id)) {
        sds *fa = s->firstargs ? s->firstargs[cmd->id] : NULL;
        int idx = cmd->parent ? 2 : 1;
        if (!fa || argc <= idx) return ACL_DENIED_CMD;
        while (*fa && strcasecmp(argv[idx]->ptr, *fa)) fa++;
        if (!*fa) return ACL_DENIED_CMD;
    }
    if (!(s->flags & ACL_SEL_ALLKEYS) && commandHasKeys(cmd)) {
        if (!kc->init) {
            kc->keys = argc + 1 <= 8 ? kc->small : zmalloc(sizeof(cmdKeyRef) * (argc + 1));
            kc->n = commandKeyRefs(cmd, argv, argc, kc->keys);
            kc->init = 1;
        }
        for (int j = 0; j < kc->n; j++) {
            robj *k = argv[kc->keys[j].pos];
            if (!aclKeyAllowed(s, k->ptr, sdslen(k->ptr), kc->keys[j].flags)) {
                *argpos = kc->keys[j].pos;
                return ACL_DENIED_KEY;
            }
        }
    }
    if (!(s->flags & ACL_SEL_ALLCHANNELS) && (cmd->flags & CMD_PUBSUB)) {
        int first, last, pattern;
        aclChannelArgs(cmd, argc, &first, &last, &pattern);
        for (int j = first; j <= last; j++) {
            sds ch = argv[j]->ptr;
            if (!aclChannelAllowed(s, ch, sdslen(ch), pattern)) {
                *argpos = j;
                return ACL_DENIED_CHANNEL;
            }
        }
    }
    return ACL_OK;
}

int aclCheckUserCommand(aclUser *u, cairnCommand *cmd, robj **argv, int argc, int *argpos) {
    aclKeyCache kc = {0};
    int relevant = ACL_DENIED_CMD, last = 0;
    int result = -1;
    for (int j = 0; j < u->nselectors; j++) {
        int pos = 0;
        int r = aclSelectorCheck(u->selectors[j], cmd, argv, argc, &pos, &kc);
        if (r == ACL_OK) {
            result = ACL_OK;
            break;
        }
        if (r > relevant || (r == relevant && pos > last)) {
            relevant = r;
            last = pos;
        }
    }
    if (kc.keys && kc.keys != kc.small) zfree(kc.keys);
    if (result == ACL_OK) return ACL_OK;
    *argpos = last;
    return relevant;
}

int aclClientHasFullKeyAccess(client *c) {
    aclUser *u = c->user;
    if (!u || u->allpass) return 1;
    aclKeyCache kc = {0};
    int full = 0;
    for (int j = 0; j < u->nselectors && !full; j++) {
        aclSelector *s = u->selectors[j];
        int pos;
        if (aclSelectorCheck(s, c->cmd, c->argv, c->argc, &pos, &kc) != ACL_OK) continue;
        if (s->flags & ACL_SEL_ALLKEYS) full = 1;
        for (int k = 0; k < s->npatterns && !full; k++)
            if ((s->patterns[k].perms & ACL_PERM_READ) && !strcmp(s->patterns[k].pattern, "*"))
                full = 1;
    }
    if (kc.keys && kc.keys != kc.small) zfree(kc.keys);
    return full;
}

void aclDeny(client *c, int result, int argpos) {
    aclLogAdd(c, result, (c->flags & CLIENT_MULTI) ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL,
              argpos, NULL, NULL);
    if (result == ACL_DENIED_CMD)
        replyErrorFormat(c, "NOPERM this user has no permissions to run the '%s' command",
                         c->cmd->fullname);
    else if (result == ACL_DENIED_KEY)
        replyError(
            c, "NOPERM this user has no permissions to access one of the keys used as arguments");
    else if (result == ACL_DENIED_CHANNEL)
        replyError(c, "NOPERM this user has no permissions to access one of the channels used as "
                      "arguments");
    else
        replyError(c, "NOPERM no permission");
}

void aclInit(void) {
    int ids = commandsIdCount();
    cmd_words = (ids + 63) / 64;
    default_user = aclCreateUser("default", 7);
    aclSetUser(default_user, "+@all", -1);
    aclSetUser(default_user, "~*", -1);
    aclSetUser(default_user, "&*", -1);
    aclSetUser(default_user, "on", -1);
    aclUpdateDefaultPassword(cfg.requirepass);
    cfgHooks.apply_requirepass = aclApplyRequirepass;
}
