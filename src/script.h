/* script: EVAL / EVALSHA / EVAL_RO / EVALSHA_RO and SCRIPT, the script
 * cache (sha1 -> body) and the busy state other clients see while a long
 * script runs. The Lua side is script_lua.h. */
#ifndef CAIRN_SCRIPT_H
#define CAIRN_SCRIPT_H

typedef struct client client;

#define SCRIPT_BUSY_ERROR                                                                          \
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."

void scriptInit(void);
/* A script has run past busy-reply-threshold: commands without
 * allow_busy get SCRIPT_BUSY_ERROR. */
int scriptIsBusy(void);
/* INFO: cached scripts and the memory of their bodies. */
long long scriptCacheCount(void);
long long scriptCacheMemory(void);

void evalCommand(client *c);
void evalShaCommand(client *c);
void evalRoCommand(client *c);
void evalShaRoCommand(client *c);
void scriptCommand(client *c);

#endif
