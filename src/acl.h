/* acl: users, their rules and the permission check (acl.c), the ACL LOG
 * and the ACL command (aclcmd.c), the aclfile and `user` directives
 * (acl_file.c).
 *
 * A client points at the user it authenticated as (c->user; NULL for the
 * server's own clients: the primary's link, the AOF loader, which may run
 * anything). Users are owned by the user table in acl.c; a deleted user's
 * clients are disconnected before it is freed, so c->user never dangles.
 *
 * The check (aclCheckCommand) runs once per command in commandProcess, and
 * again for each queued command at EXEC, as in Redis 7.0. A user whose root
 * selector allows every command, key and channel has `allpass` set, so the
 * common case costs one load and one branch. */
#ifndef CAIRN_ACL_H
#define CAIRN_ACL_H
#include "object.h"
#include "sds.h"

#include <stdint.h>

typedef struct client client;
typedef struct cairnCommand cairnCommand;

/* Results of a check, in Redis' order: a higher value is the more relevant
 * error when several selectors deny. */
#define ACL_OK             0
#define ACL_DENIED_CMD     1
#define ACL_DENIED_KEY     2
#define ACL_DENIED_AUTH    3
#define ACL_DENIED_CHANNEL 4

/* ACL LOG contexts */
#define ACL_LOG_CTX_TOPLEVEL 0
#define ACL_LOG_CTX_LUA      1
#define ACL_LOG_CTX_MULTI    2

/* User flags, in the order ACL LIST and GETUSER show them. */
#define ACL_USER_ENABLED       (1 << 0)
#define ACL_USER_DISABLED      (1 << 1)
#define ACL_USER_NOPASS        (1 << 2)
#define ACL_USER_SKIP_SANITIZE (1 << 3)
#define ACL_USER_SANITIZE      (1 << 4)

/* Selector flags */
#define ACL_SEL_ROOT        (1 << 0)
#define ACL_SEL_ALLKEYS     (1 << 1)
#define ACL_SEL_ALLCOMMANDS (1 << 2)
#define ACL_SEL_ALLCHANNELS (1 << 3)
#define ACL_SEL_FUTURE      (1 << 4) /* started from +@all: commands added later are allowed */

/* Key pattern permissions */
#define ACL_PERM_READ  (1 << 0)
#define ACL_PERM_WRITE (1 << 1)
#define ACL_PERM_ALL   (ACL_PERM_READ | ACL_PERM_WRITE)

typedef struct aclKeyPattern {
    sds pattern;
    int perms; /* ACL_PERM_* */
} aclKeyPattern;

typedef struct aclSelector {
    int flags;          /* ACL_SEL_* */
    uint64_t *cmd_bits; /* one bit per command id (commands.c numbers them) */
    sds **firstargs;    /* NULL, or per command id NULL or a NULL-terminated list (+select|0) */
    aclKeyPattern *patterns;
    int npatterns;
    sds *channels;
    int nchannels;
} aclSelector;

typedef struct aclUser {
    sds name;
    int flags;      /* ACL_USER_* */
    int allpass;    /* root selector allows everything: the check is skipped */
    sds *passwords; /* SHA-256 in lowercase hex, 64 chars each */
    int npasswords;
    aclSelector **selectors; /* [0] is the root selector */
    int nselectors;
} aclUser;

/* --- acl.c: users and rules --- */
void aclInit(void); /* after commandsInit: creates "default" */
aclUser *aclDefaultUser(void);
aclUser *aclLookupUser(const char *name, size_t len);
aclUser *aclCreateUser(const char *name, size_t len); /* NULL if it exists */
aclUser *aclCreateUnlinkedUser(void);
void aclFreeUser(aclUser *u);
void aclCopyUser(aclUser *dst, aclUser *src);
int aclSetUser(aclUser *u, const char *op, ssize_t oplen); /* 0 ok, -1 with errno */
const char *aclSetUserErrorString(int err);
int aclMergeSelectorArgs(sds *argv, int argc, sds **merged, int *mergedc, sds *err);
void aclDeleteUser(aclUser *u); /* unlinks, disconnects its clients, frees */
aclUser **aclUsers(int *count); /* sorted by name; the table's own array */
void aclReplaceUsers(aclUser **users,
                     int count); /* ACL LOAD: new table (default copied in place) */
sds aclDescribeUser(aclUser *u); /* the ACL LIST line, without "user name " */
sds aclDescribeSelectorCommands(aclSelector *s);
sds aclDescribeSelectorKeys(aclSelector *s);
sds aclDescribeSelectorChannels(aclSelector *s);
int aclUsernameValid(const char *name, size_t len);
void aclUpdateDefaultPassword(const char *pass); /* requirepass; NULL: nopass */
void aclKillPubsubClientsIfNeeded(aclUser *newu, aclUser *old);
void aclKillUserClients(aclUser *u);

/* Authentication: 1 and c->user set, or 0 with the failure logged. */
int aclAuthenticate(client *c, robj *username, robj *password);
int aclAuthRequired(client *c);         /* Redis' authRequired */
int aclClientStartsAuthenticated(void); /* default user on and nopass */

/* The check. *argpos gets the argv index of the denied key or channel. */
int aclCheckUserCommand(aclUser *u, cairnCommand *cmd, robj **argv, int argc, int *argpos);
static inline int aclCheckCommand(aclUser *u, cairnCommand *cmd, robj **argv, int argc,
                                  int *argpos) {
    if (!u || u->allpass) return ACL_OK;
    return aclCheckUserCommand(u, cmd, argv, argc, argpos);
}
/* SORT BY/GET patterns: some selector allows the command with every key readable. */
int aclClientHasFullKeyAccess(client *c);
/* The NOPERM reply for a denial at the top level (also logged). */
void aclDeny(client *c, int result, int argpos);

/* --- aclcmd.c: the log and the command --- */
void aclLogAdd(client *c, int reason, int context, int argpos, const char *username,
               const char *object);
void aclCommand(client *c);

/* --- acl_file.c --- */
int aclUserDirective(sds *argv, int argc, const char **err); /* config `user` lines */
int aclLoadAtStartup(sds *err);                              /* `user` lines or the aclfile */
sds aclLoadFile(const char *path); /* NULL ok, else the errors (ACL LOAD) */
sds aclSaveFile(const char *path); /* NULL ok, else the error */
#endif
