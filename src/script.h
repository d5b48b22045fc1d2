/* script: EVAL / EVALSHA / EVAL_RO / EVALSHA_RO and SCRIPT, the script
 * cache (sha1 -> body) and the busy state other clients see while a long
 * script runs. The Lua side is script_lua.h. */
#ifndef CAIRN_SCRIPT_H
#define CAIRN_SCRIPT_H
#include "object.h"

typedef struct client client;
typedef struct cairnCommand cairnCommand;
#include "object.h"

#define SCRIPT_BUSY_ERROR                                                                          \
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."

#define SCRIPT_BUSY_FUNCTION_ERROR                                                                 \
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."

struct scriptRun;

void scriptInit(void);
/* The -BUSY text for the run in progress (EVAL's or FUNCTION's way out). */
const char *scriptBusyError(void);
/* SCRIPT KILL (eval 1) and FUNCTION KILL (eval 0): replies. */
void scriptKill(client *c, int eval);
/* SCRIPT_FLAG_* of a flag name (nocase: FUNCTION's flags), 0 if none;
 * scriptFlagName walks the names from i = 0 until NULL. */
int scriptFlagFromName(const char *name, int nocase);
const char *scriptFlagName(int i, int *flag);
/* argv[2] of EVAL/FCALL as a key count within argc; -1 after replying
 * (notint: the error when it is no integer; NULL: the generic one). */
int scriptNumKeys(client *c, long long *numkeys, const char *notint);
/* Fill run for caller c and check the flags against the server state
 * (stale replica, read-only replica, MISCONF, *_RO, min-replicas, OOM);
 * -1 after replying the refusal. */
int scriptPrepareRun(struct scriptRun *run, client *c, int flags, int ro);
/* Run a prepared run on c's argv (KEYS at argv[3], numkeys of them) inside
 * one propagated MULTI/EXEC: call(run, ref, ...) when given (FCALL), else
 * the EVAL script named by run->sha. */
void scriptExecute(struct scriptRun *run,
                   void (*call)(struct scriptRun *run, int ref, robj **keys, int nkeys, robj **args,
                                int nargs),
                   int ref, int numkeys);
/* A script has run past busy-reply-threshold: commands without
 * allow_busy get SCRIPT_BUSY_ERROR. */
int scriptIsBusy(void);
/* May this command write or replicate (CLIENT PAUSE WRITE holds it)? Its
 * flags say, except for scripts, as in Redis: a script with a shebang or
 * a function may unless it declares no-writes; EVAL/EVALSHA of a script
 * without one (or not cached) may, the _RO forms may not. */
int scriptCommandMayWrite(cairnCommand *cmd, robj **argv, int argc);
/* Does the EVAL/EVALSHA/FCALL run a script whose flags make it a write
 * (a shebang or function without no-writes)? Redis counts those as write
 * commands when queued, so EXEC of them is refused on a read-only replica
 * (or without good replicas) before anything runs. */
int scriptCommandDeclaresWrite(cairnCommand *cmd, robj **argv, int argc);
/* The client whose script is running (NULL: none). */
client *scriptCaller(void);
/* INFO: cached scripts and the memory of their bodies. */
long long scriptCacheCount(void);
long long scriptCacheMemory(void);

void evalCommand(client *c);
void evalShaCommand(client *c);
void evalRoCommand(client *c);
void evalShaRoCommand(client *c);
void scriptCommand(client *c);

#endif
