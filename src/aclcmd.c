/* aclcmd: the ACL command (SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI,
 * CAT, GENPASS, LOG, DRYRUN, LOAD, SAVE, HELP) and the ACL LOG.
 *
 * The log is a list of denials, newest first, at most acllog-max-len long.
 * A denial like one of the 10 newest (same reason, context, object and
 * user, within 60 s) bumps that entry's count, moves it to the front and
 * takes its client info, as in Redis. Entries own their strings. */
#include "acl.h"
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "reply.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"

#include <errno.h>
#include <openssl/rand.h>
#include <string.h>

#define ACL_LOG_GROUPING_MS 60000

typedef struct aclLogEntry {
    long long count;
    int reason, context;
    sds object, username, cinfo;
    long long ctime; /* ms of the last update */
    struct aclLogEntry *next;
} aclLogEntry;

static aclLogEntry *acl_log; /* newest first */
static long acl_log_len;

static void aclLogFreeEntry(aclLogEntry *e) {
    sdsfree(e->object);
    sdsfree(e->username);
    sdsfree(e->cinfo);
    zfree(e);
}

static void aclLogTrim(void) {
    long keep = (long)cfg.acllog_max_len;
    aclLogEntry **pp = &acl_log;
    long n = 0;
    while (*pp && n < keep) {
        pp = &(*pp)->next;
        n++;
    }
    while (*pp) {
        aclLogEntry *e = *pp;
        *pp = e->next;
        aclLogFreeEntry(e);
        acl_log_len--;
    }
}

/* object NULL: the command's name, the denied key or channel, or for an
 * authentication failure the command as typed (AUTH, HELLO). */
void aclLogAdd(client *c, int reason, int context, int argpos, const char *username,
               const char *object) {
    sds obj;
    if (object)
        obj = sdsnew(object);
    else if (reason == ACL_DENIED_CMD)
        obj = sdsnew(c->cmd->fullname);
    else if (reason == ACL_DENIED_KEY || reason == ACL_DENIED_CHANNEL)
        obj = sdsdup(c->argv[argpos]->ptr);
    else if (reason == ACL_DENIED_AUTH)
        obj = sdsdup(c->argv[0]->ptr);
    else
        obj = sdsempty();
    sds user = sdsnew(username ? username : (c->user ? c->user->name : "default"));
    sds cinfo = clientInfoString(sdsempty(), c);
    long long now = server.unixtime_ms;
    aclLogEntry **pp = &acl_log;
    for (int scanned = 0; *pp && scanned < 10; scanned++, pp = &(*pp)->next) {
        aclLogEntry *e = *pp;
        if (e->reason != reason || e->context != context || now - e->ctime > ACL_LOG_GROUPING_MS ||
            sdscmp(e->object, obj) || sdscmp(e->username, user))
            continue;
        *pp = e->next;
        e->next = acl_log;
        acl_log = e;
        sdsfree(e->cinfo);
        e->cinfo = cinfo;
        e->ctime = now;
        e->count++;
        sdsfree(obj);
        sdsfree(user);
        return;
    }
    aclLogEntry *e = zcalloc(sizeof(*e));
    e->count = 1;
    e->reason = reason;
    e->context = context;
    e->object = obj;
    e->username = user;
    e->cinfo = cinfo;
    e->ctime = now;
    e->next = acl_log;
    acl_log = e;
    acl_log_len++;
    aclLogTrim();
}

static void aclLogCommand(client *c) {
    long count = 10;
    if (c->argc == 3) {
        if (!strcasecmp(c->argv[2]->ptr, "reset")) {
            while (acl_log) {
                aclLogEntry *e = acl_log;
                acl_log = e->next;
                aclLogFreeEntry(e);
            }
            acl_log_len = 0;
            replyOk(c);
            return;
        }
        long long v;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &v, NULL) != C_OK) return;
        if (v < 0) v = 0;
        count = (long)v;
    } else if (c->argc > 3) {
        replyErrorSubcommand(c);
        return;
    }
    static const char *reasons[] = {"", "command", "key", "auth", "channel"};
    static const char *contexts[] = {"toplevel", "lua", "multi", "module"};
    long n = count < acl_log_len ? count : acl_log_len;
    replyArrayLen(c, n);
    aclLogEntry *e = acl_log;
    for (long j = 0; j < n; j++, e = e->next) {
        replyMapLen(c, 7);
        replyBulkCString(c, "count");
        replyLongLong(c, e->count);
        replyBulkCString(c, "reason");
        replyBulkCString(c, reasons[e->reason]);
        replyBulkCString(c, "context");
        replyBulkCString(c, contexts[e->context]);
        replyBulkCString(c, "object");
        replyBulkBuf(c, e->object, sdslen(e->object));
        replyBulkCString(c, "username");
        replyBulkBuf(c, e->username, sdslen(e->username));
        replyBulkCString(c, "age-seconds");
        replyDouble(c, (double)(server.unixtime_ms - e->ctime) / 1000.0);
        replyBulkCString(c, "client-info");
        replyBulkBuf(c, e->cinfo, sdslen(e->cinfo));
    }
}

static void aclSetuserCommand(client *c) {
    for (int j = 2; j < c->argc; j++) clientRedactArg(c, j); /* rules hold passwords */
    sds name = c->argv[2]->ptr;
    if (!aclUsernameValid(name, sdslen(name))) {
        replyError(c, "ERR Usernames can't contain spaces or null characters");
        return;
    }
    int argc = c->argc - 3, mc = 0;
    sds *args = zmalloc(sizeof(sds) * (argc ? argc : 1));
    for (int j = 0; j < argc; j++) args[j] = c->argv[j + 3]->ptr;
    sds *merged = NULL, err = NULL;
    int r = aclMergeSelectorArgs(args, argc, &merged, &mc, &err);
    zfree(args);
    if (r == -1) {
        replyErrorFormat(c, "ERR %s", err);
        sdsfree(err);
        return;
    }
    /* Rules apply to a copy, which replaces the user only if all of them apply. */
    aclUser *u = aclLookupUser(name, sdslen(name));
    aclUser *tmp = aclCreateUnlinkedUser();
    if (u) aclCopyUser(tmp, u);
    for (int j = 0; j < mc; j++) {
        if (aclSetUser(tmp, merged[j], sdslen(merged[j])) == -1) {
            replyErrorFormat(c, "ERR Error in ACL SETUSER modifier '%s': %s", merged[j],
                             aclSetUserErrorString(errno));
            aclFreeUser(tmp);
            sdsfreesplitres(merged, mc);
            return;
        }
    }
    sdsfreesplitres(merged, mc);
    if (u)
        aclKillPubsubClientsIfNeeded(tmp, u);
    else
        u = aclCreateUser(name, sdslen(name));
    aclCopyUser(u, tmp);
    aclFreeUser(tmp);
    replyOk(c);
}

static void aclReplySelector(client *c, aclSelector *s) {
    replyMapLen(c, 3);
    replyBulkCString(c, "commands");
    replyBulkSds(c, aclDescribeSelectorCommands(s));
    replyBulkCString(c, "keys");
    replyBulkSds(c, aclDescribeSelectorKeys(s));
    replyBulkCString(c, "channels");
    replyBulkSds(c, aclDescribeSelectorChannels(s));
}

static void aclGetuserCommand(client *c) {
    aclUser *u = aclLookupUser(c->argv[2]->ptr, sdslen(c->argv[2]->ptr));
    if (!u) {
        replyNull(c);
        return;
    }
    static const struct {
        int flag;
        const char *name;
    } names[] = {{ACL_USER_ENABLED, "on"},
                 {ACL_USER_DISABLED, "off"},
                 {ACL_USER_NOPASS, "nopass"},
                 {ACL_USER_SKIP_SANITIZE, "skip-sanitize-payload"},
                 {ACL_USER_SANITIZE, "sanitize-payload"}};
    replyMapLen(c, 6);
    replyBulkCString(c, "flags");
    int nf = 0;
    for (int j = 0; j < 5; j++) nf += (u->flags & names[j].flag) != 0;
    replySetLen(c, nf);
    for (int j = 0; j < 5; j++)
        if (u->flags & names[j].flag) replyBulkCString(c, names[j].name);
    replyBulkCString(c, "passwords");
    replyArrayLen(c, u->npasswords);
    for (int j = 0; j < u->npasswords; j++)
        replyBulkBuf(c, u->passwords[j], sdslen(u->passwords[j]));
    aclSelector *root = u->selectors[0];
    replyBulkCString(c, "commands");
    replyBulkSds(c, aclDescribeSelectorCommands(root));
    replyBulkCString(c, "keys");
    replyBulkSds(c, aclDescribeSelectorKeys(root));
    replyBulkCString(c, "channels");
    replyBulkSds(c, aclDescribeSelectorChannels(root));
    replyBulkCString(c, "selectors");
    replyArrayLen(c, u->nselectors - 1);
    for (int j = 1; j < u->nselectors; j++) aclReplySelector(c, u->selectors[j]);
}

static void aclDeluserCommand(client *c) {
    long long deleted = 0;
    for (int j = 2; j < c->argc; j++) {
        sds name = c->argv[j]->ptr;
        if (!strcmp(name, "default")) {
            replyError(c, "ERR The 'default' user cannot be removed");
            return;
        }
    }
    for (int j = 2; j < c->argc; j++) {
        aclUser *u = aclLookupUser(c->argv[j]->ptr, sdslen(c->argv[j]->ptr));
        if (!u) continue;
        aclDeleteUser(u);
        deleted++;
    }
    replyLongLong(c, deleted);
}

static void aclCatCommand(client *c) {
    uint64_t flag;
    const char *name;
    if (c->argc == 2) {
        int n = 0;
        while (commandAclCategoryAt(n, &flag, &name)) n++;
        replyArrayLen(c, n);
        for (int j = 0; j < n; j++) {
            commandAclCategoryAt(j, &flag, &name);
            replyBulkCString(c, name);
        }
        return;
    }
    int found = 0;
    for (int j = 0; commandAclCategoryAt(j, &flag, &name); j++)
        if (!strcasecmp(name, c->argv[2]->ptr)) {
            found = 1;
            break;
        }
    if (!found) {
        replyErrorFormat(c, "ERR Unknown category '%.128s'", (char *)c->argv[2]->ptr);
        return;
    }
    void *len = replyDeferredLen(c);
    long n = 0;
    for (cairnCommand *cmd = server.commands_list; cmd->name; cmd++) {
        if (commandAclCategories(cmd) & flag) {
            replyBulkCString(c, cmd->fullname);
            n++;
        }
        for (cairnCommand *sub = cmd->subcommands; sub && sub->name; sub++)
            if (commandAclCategories(sub) & flag) {
                replyBulkCString(c, sub->fullname);
                n++;
            }
    }
    replySetDeferredArrayLen(c, len, n);
}

static void aclGenpassCommand(client *c) {
    long long bits = 256;
    if (c->argc == 3 && getLongLongFromObjectOrReply(c, c->argv[2], &bits, NULL) != C_OK) return;
    if (bits <= 0 || bits > 4096) {
        replyError(c, "ERR ACL GENPASS argument must be the number of bits for the output "
                      "password, a positive number up to 4096");
        return;
    }
    int chars = (int)((bits + 3) / 4);
    unsigned char raw[512];
    RAND_bytes(raw, (chars + 1) / 2);
    static const char hex[] = "0123456789abcdef";
    char out[1025];
    for (int j = 0; j < chars; j++) out[j] = hex[(raw[j / 2] >> ((j & 1) ? 0 : 4)) & 15];
    replyBulkBuf(c, out, chars);
}

static void aclDryrunCommand(client *c) {
    aclUser *u = aclLookupUser(c->argv[2]->ptr, sdslen(c->argv[2]->ptr));
    if (!u) {
        replyErrorFormat(c, "ERR User '%s' not found", (char *)c->argv[2]->ptr);
        return;
    }
    robj **argv = c->argv + 3;
    int argc = c->argc - 3;
    cairnCommand *cmd = commandLookup(argv, argc);
    if (!cmd) {
        replyErrorFormat(c, "ERR Command '%s' not found", (char *)argv[0]->ptr);
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        replyErrorFormat(c, "ERR wrong number of arguments for '%s' command", cmd->fullname);
        return;
    }
    int pos = 0;
    int r = aclCheckUserCommand(u, cmd, argv, argc, &pos);
    if (r == ACL_OK) {
        replyOk(c);
        return;
    }
    sds msg;
    if (r == ACL_DENIED_CMD)
        msg = sdscatprintf(sdsempty(), "This user has no permissions to run the '%s' command",
                           cmd->fullname);
    else if (r == ACL_DENIED_KEY)
        msg = sdscatprintf(sdsempty(), "This user has no permissions to access the '%s' key",
                           (char *)argv[pos]->ptr);
    else
        msg = sdscatprintf(sdsempty(), "This user has no permissions to access the '%s' channel",
                           (char *)argv[pos]->ptr);
    replyBulkSds(c, msg);
}

static const char aclNoFileErr[] =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";

static void aclLoadSaveCommand(client *c, int load) {
    if (!cfg.acl_filename || !cfg.acl_filename[0]) {
        replyError(c, aclNoFileErr);
        return;
    }
    sds err = load ? aclLoadFile(cfg.acl_filename) : aclSaveFile(cfg.acl_filename);
    if (!err) {
        replyOk(c);
        return;
    }
    replyErrorFormat(c, "ERR %s", err);
    sdsfree(err);
}

void aclCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "setuser")) {
        aclSetuserCommand(c);
    } else if (!strcasecmp(sub, "getuser")) {
        aclGetuserCommand(c);
    } else if (!strcasecmp(sub, "deluser")) {
        aclDeluserCommand(c);
    } else if (!strcasecmp(sub, "list") || !strcasecmp(sub, "users")) {
        int n;
        aclUser **us = aclUsers(&n);
        int list = !strcasecmp(sub, "list");
        replyArrayLen(c, n);
        for (int j = 0; j < n; j++) {
            if (!list) {
                replyBulkBuf(c, us[j]->name, sdslen(us[j]->name));
                continue;
            }
            sds d = aclDescribeUser(us[j]);
            sds line = sdscatprintf(sdsempty(), "user %s %s", us[j]->name, d);
            sdsfree(d);
            replyBulkSds(c, line);
        }
    } else if (!strcasecmp(sub, "whoami")) {
        const char *name = c->user ? c->user->name : "default";
        replyBulkCString(c, name);
    } else if (!strcasecmp(sub, "cat")) {
        if (c->argc > 3) {
            replyErrorSubcommand(c);
            return;
        }
        aclCatCommand(c);
    } else if (!strcasecmp(sub, "genpass")) {
        if (c->argc > 3) {
            replyErrorSubcommand(c);
            return;
        }
        aclGenpassCommand(c);
    } else if (!strcasecmp(sub, "log")) {
        aclLogCommand(c);
    } else if (!strcasecmp(sub, "dryrun")) {
        aclDryrunCommand(c);
    } else if (!strcasecmp(sub, "load")) {
        aclLoadSaveCommand(c, 1);
    } else if (!strcasecmp(sub, "save")) {
        aclLoadSaveCommand(c, 0);
    } else {
        static const char *help[] = {
            "CAT [<category>]",
            "    List all commands that belong to <category>, or all command categories",
            "    when no category is specified.",
            "DELUSER <username> [<username> ...]",
            "    Delete a list of users.",
            "DRYRUN <username> <command> [<arg> ...]",
            "    Returns whether the user can execute the given command without executing the "
            "command.",
            "GETUSER <username>",
            "    Get the user's details.",
            "GENPASS [<bits>]",
            "    Generate a secure 256-bit user password. The optional `bits` argument can",
            "    be used to specify a different size.",
            "LIST",
            "    Show users details in config file format.",
            "LOAD",
            "    Reload users from the ACL file.",
            "LOG [<count> | RESET]",
            "    Show the ACL log entries.",
            "SAVE",
            "    Save the current config to the ACL file.",
            "SETUSER <username> <attribute> [<attribute> ...]",
            "    Create or modify a user with the specified attributes.",
            "USERS",
            "    List all the registered usernames.",
            "WHOAMI",
            "    Return the current connection username.",
            NULL};
        replyHelp(c, help);
    }
}
