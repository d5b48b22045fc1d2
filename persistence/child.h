/* child: the one forked background child the server may have at a time
 * (today a BGSAVE; later AOF rewrites and diskless sync), as in Redis.
 *
 * childFork forks and, in the parent, records the child and disables dict
 * resizing (so copy-on-write does not duplicate every table); the cron
 * calls childCheckDone, which reaps the child without blocking and reports
 * how it ended, re-enabling resizing. The child ends with childExit, which
 * skips atexit handlers and stdio flushing inherited from the parent.
 * Nothing is allocated. */
#ifndef CAIRN_CHILD_H
#define CAIRN_CHILD_H
#include <sys/types.h>

#define CHILD_TYPE_NONE 0
#define CHILD_TYPE_RDB 1
#define CHILD_TYPE_AOF 2
#define CHILD_TYPE_REPL 3 /* a full sync's snapshot (replication/) */

/* fork(): the child's pid in the parent, 0 in the child, -1 on failure
 * (errno set). */
pid_t childFork(int type);
int childActiveType(void); /* CHILD_TYPE_NONE when there is no child */
pid_t childPid(void);
long long childStartTime(void); /* unix seconds */
long long childLastForkUsec(void); /* how long the last fork() took */
long long childTotalForks(void);
/* If the child has ended: 1, with its type, exit code and (0 or) the
 * signal that killed it; else 0. */
int childCheckDone(int *type, int *exitcode, int *bysignal);
/* Kill the child (SIGUSR1, which the parent treats as "cancelled") and
 * wait for it. */
void childKill(void);
/* Ask the child to stop (SIGUSR1, a cancel rather than a failure) without
 * waiting: the cron reaps it and runs its done callback as usual. */
void childStop(void);
void childExit(int status) __attribute__((noreturn));

#endif
