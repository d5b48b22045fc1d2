/* child_info: what a forked background child tells its parent while it
 * works, through a pipe opened at each fork (Redis' child-info pipe): keys
 * processed so far and the child's copy-on-write size, i.e. its
 * Private_Dirty memory (pages the parent changed since the fork, so no
 * longer shared, plus the child's own allocations).
 *
 * child.c opens the pipe around fork(); the child sends fixed-size
 * messages (atomic on a pipe, dropped rather than waited for when the pipe
 * is full); the parent drains them without blocking from its cron and
 * closes the pipe once the child is reaped. Also here: disabling
 * transparent huge pages for the process (disable-thp), because a 2 MB
 * huge page turns every small write during a fork into a 2 MB copy. */
#ifndef CAIRN_CHILD_INFO_H
#define CAIRN_CHILD_INFO_H
#include <stddef.h>

#define CHILD_INFO_PROGRESS 1 /* while working */
#define CHILD_INFO_DONE 2     /* the work is finished (sent just before exiting) */

typedef struct childInfoMsg {
    int kind;           /* CHILD_INFO_* */
    long long keys;     /* keys processed so far */
    size_t cow_bytes;   /* the child's Private_Dirty memory */
} childInfoMsg;

/* Parent, just before fork(): a new pipe (closing a previous one). 0 or -1. */
int childInfoOpen(void);
/* After fork(): each side closes the end it does not use. */
void childInfoAfterFork(int in_child);
/* Parent: close the read end (the child was reaped or killed). */
void childInfoClose(void);
/* Child: send a message with the current copy-on-write size. Reading smaps
 * costs a few ms on a big process: the caller rate-limits PROGRESS. */
void childInfoSend(int kind, long long keys);
/* Parent: the next pending message into *m (1), or 0 when none. */
int childInfoReceive(childInfoMsg *m);
/* This process's Private_Dirty bytes (/proc/self/smaps_rollup, else the
 * sum over /proc/self/smaps); 0 when unavailable. */
size_t childInfoPrivateDirty(void);
/* 1 if the kernel gives huge pages to every process ("[always]" in
 * /sys/kernel/mm/transparent_hugepage/enabled); under "madvise" only
 * regions that ask get them, and the server asks for none. */
int childInfoTHPAlways(void);
/* prctl(PR_SET_THP_DISABLE): 0 on success, -1 (errno set) otherwise. */
int childInfoDisableTHP(void);

#endif
