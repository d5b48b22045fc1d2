/* commands: the command struct and flags, the single table (commands.c),
 * the lookup and call path (commandProcess -> commandCall) and the command
 * functions the table registers.
 *
 * The table is static; commandsInit parses its key specs and fills
 * server.commands (name -> cairnCommand*). Commands whose module has its
 * own header (t_*.h, sort.h, snapshot.h, aof.h, multi.h, pubsub.h,
 * tracking.h) are declared there; the rest are declared here. */
#ifndef CAIRN_COMMANDS_H
#define CAIRN_COMMANDS_H
#include "dict.h"
#include "object.h"
#include "sds.h"

#include <stdint.h>

typedef struct client client;

/* Command flags (the subset of Redis' that matters to the core now). */
#define CMD_WRITE      (1ULL << 0)
#define CMD_READONLY   (1ULL << 1)
#define CMD_DENYOOM    (1ULL << 2)
#define CMD_ADMIN      (1ULL << 4)
#define CMD_PUBSUB     (1ULL << 5)
#define CMD_NOSCRIPT   (1ULL << 6)
#define CMD_BLOCKING   (1ULL << 8)
#define CMD_LOADING    (1ULL << 9)
#define CMD_STALE      (1ULL << 10)
#define CMD_SKIP_MONITOR (1ULL << 11)
#define CMD_SKIP_SLOWLOG (1ULL << 12)
#define CMD_FAST       (1ULL << 14)
#define CMD_NO_AUTH    (1ULL << 15)
#define CMD_MAY_REPLICATE (1ULL << 16)
#define CMD_SENTINEL   (1ULL << 17)
#define CMD_NO_MANDATORY_KEYS (1ULL << 19)
#define CMD_PROTECTED  (1ULL << 20)
#define CMD_NO_ASYNC_LOADING (1ULL << 23)
#define CMD_NO_MULTI   (1ULL << 24)
#define CMD_ALLOW_BUSY (1ULL << 26)
#define CMD_MOVABLE_KEYS (1ULL << 25) /* set at start-up from the key specs */

/* Key spec flags (COMMAND INFO, COMMAND GETKEYSANDFLAGS), Redis' names. */
#define CMD_KEY_RO (1U << 0)
#define CMD_KEY_RW (1U << 1)
#define CMD_KEY_OW (1U << 2)
#define CMD_KEY_RM (1U << 3)
#define CMD_KEY_ACCESS (1U << 4)
#define CMD_KEY_UPDATE (1U << 5)
#define CMD_KEY_INSERT (1U << 6)
#define CMD_KEY_DELETE (1U << 7)
#define CMD_KEY_NOT_KEY (1U << 8)
#define CMD_KEY_INCOMPLETE (1U << 9)
#define CMD_KEY_VARIABLE_FLAGS (1U << 10)

/* ACL categories: COMMAND INFO shows them, ACL rules (+@read) select by them. */
#define ACL_CAT_KEYSPACE   (1ULL << 0)
#define ACL_CAT_READ       (1ULL << 1)
#define ACL_CAT_WRITE      (1ULL << 2)
#define ACL_CAT_LIST       (1ULL << 3)
#define ACL_CAT_HASH       (1ULL << 4)
#define ACL_CAT_SET        (1ULL << 5)
#define ACL_CAT_SORTEDSET  (1ULL << 6)
#define ACL_CAT_STRING     (1ULL << 7)
#define ACL_CAT_BITMAP     (1ULL << 8)
#define ACL_CAT_HYPERLOGLOG (1ULL << 9)
#define ACL_CAT_PUBSUB     (1ULL << 13)
#define ACL_CAT_BLOCKING   (1ULL << 17)
#define ACL_CAT_ADMIN      (1ULL << 10)
#define ACL_CAT_FAST       (1ULL << 11)
#define ACL_CAT_SLOW       (1ULL << 12)
#define ACL_CAT_DANGEROUS  (1ULL << 14)
#define ACL_CAT_CONNECTION (1ULL << 15)
#define ACL_CAT_TRANSACTION (1ULL << 16)
#define ACL_CAT_GEO        (1ULL << 18)
#define ACL_CAT_STREAM     (1ULL << 19)
#define ACL_CAT_SCRIPTING  (1ULL << 20)

struct client;
typedef void commandProc(struct client *c);

/* One key a command names: its argv index and CMD_KEY_* flags. */
typedef struct cmdKeyRef {
    int pos;
    unsigned flags;
} cmdKeyRef;
/* For commands whose keys the key specs cannot describe (SORT ... STORE)
 * or whose flags depend on the arguments (SET ... GET): fills keys (room
 * for argc entries), returns how many. */
typedef int cmdGetKeysProc(robj **argv, int argc, cmdKeyRef *keys);
struct cmdKeySpec;

/* Key positions the classic way (first, last, step): last < 0 counts from
 * the end (MSET: 1, -1, 2). keyspecs describes them as Redis' key specs do
 * (the format is in commands.c); they are parsed at start-up. */
typedef struct cairnCommand {
    const char *name;
    commandProc *proc;
    int arity; /* >0 exact, <0 at least -arity */
    uint64_t flags;
    uint64_t acl_categories;
    int firstkey, lastkey, keystep;
    const char *summary;
    const char *since;
    const char *group;
    const char *tips;                   /* NULL or space separated */
    const char *keyspecs;               /* NULL: no keys */
    cmdGetKeysProc *getkeys;            /* NULL: the key specs say it all */
    struct cmdKeySpec *key_specs;       /* parsed keyspecs */
    int key_specs_num;
    uint64_t *latency_hist;             /* latency.c, NULL until first call */
    struct cairnCommand *subcommands;   /* NULL-name terminated, for containers */
    struct cairnCommand *parent;
    /* Filled at start-up */
    sds fullname;
    int id;
    /* Statistics */
    long long microseconds, calls, rejected_calls, failed_calls;
} cairnCommand;

/* --- commands.c --- */
void commandsInit(void);
cairnCommand *commandLookup(robj **argv, int argc);
cairnCommand *commandLookupByName(const char *name);
int commandsApplyRenames(const char **err); /* cfg.rename_command, after commandsInit */
int commandProcess(client *c);
void commandCall(client *c);
/* A command a script's checks refused before it ran (err: "-CODE msg", or
 * a message for ERR): counted as Redis counts it, in cmd's rejected_calls
 * (cmd may be NULL) and the error stats, as an error of the script's
 * inner command, not of the script (its failed_calls). */
void commandCountScriptRefusal(cairnCommand *cmd, const char *err, size_t len);
/* Only cmd's proc on c's argv, as the AOF loader runs a command: no ACL,
 * statistics, slowlog, MONITOR or propagation (tests/fuzz runs them so too). */
void commandRunProc(client *c, cairnCommand *cmd);
void commandCommand(client *c);
int commandGetKeys(cairnCommand *cmd, robj **argv, int argc, int *keys, int max);
int commandHasKeys(cairnCommand *cmd);
/* The keys argv names with their CMD_KEY_* flags; keys has room for argc + 1. */
int commandKeyRefs(cairnCommand *cmd, robj **argv, int argc, cmdKeyRef *keys);
int commandsIdCount(void); /* ids are 0 .. count-1, subcommands included */
/* Every category the command is in: its row's plus those its flags imply. */
uint64_t commandAclCategories(cairnCommand *c);
/* The j-th category in Redis' order; 0 past the last. */
int commandAclCategoryAt(int j, uint64_t *flag, const char **name);
void commandResetStats(void);
extern dictType commandTableDictType;

/* --- Commands (one function each, registered in commands.c) --- */
/* strings: t_string.c */
void getCommand(client *c);
void setCommand(client *c);
void setnxCommand(client *c);
void setexCommand(client *c);
void psetexCommand(client *c);
void getsetCommand(client *c);
void getdelCommand(client *c);
void getexCommand(client *c);
void mgetCommand(client *c);
void msetCommand(client *c);
void msetnxCommand(client *c);
void incrCommand(client *c);
void decrCommand(client *c);
void incrbyCommand(client *c);
void decrbyCommand(client *c);
void incrbyfloatCommand(client *c);
void appendCommand(client *c);
void setrangeCommand(client *c);
void getrangeCommand(client *c);
void strlenCommand(client *c);
void lcsCommand(client *c);
/* keys: keys.c */
void delCommand(client *c);
void unlinkCommand(client *c);
void existsCommand(client *c);
void typeCommand(client *c);
void keysCommand(client *c);
void scanCommand(client *c);
void randomkeyCommand(client *c);
void renameCommand(client *c);
void renamenxCommand(client *c);
void copyCommand(client *c);
void dumpCommand(client *c);
void restoreCommand(client *c);
void moveCommand(client *c);
void touchCommand(client *c);
void dbsizeCommand(client *c);
void flushdbCommand(client *c);
void flushallCommand(client *c);
void selectCommand(client *c);
void swapdbCommand(client *c);
void objectCommand(client *c);
/* expire.c */
void expireCommand(client *c);
void pexpireCommand(client *c);
void expireatCommand(client *c);
void pexpireatCommand(client *c);
void ttlCommand(client *c);
void pttlCommand(client *c);
void expiretimeCommand(client *c);
void pexpiretimeCommand(client *c);
void persistCommand(client *c);
/* connection commands: conncmd.c */
void pingCommand(client *c);
void echoCommand(client *c);
void quitCommand(client *c);
void helloCommand(client *c);
void authCommand(client *c);
void resetCommand(client *c);
void clientCommand(client *c);
void selectCommand(client *c);
/* server commands */
void infoCommand(client *c);
void timeCommand(client *c);
void lolwutCommand(client *c);
void moduleCommand(client *c);
void debugCommand(client *c);
void slowlogCommand(client *c);
void shutdownCommand(client *c);
void monitorCommand(client *c);
void memoryCommand(client *c);
void latencyCommand(client *c);

#endif
