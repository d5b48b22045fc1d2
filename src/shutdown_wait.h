/* shutdown_wait: a primary's shutdown waits (shutdown-timeout) for its
 * replicas to acknowledge the stream, writes paused; see shutdown_wait.c. */
#ifndef CAIRN_SHUTDOWN_WAIT_H
#define CAIRN_SHUTDOWN_WAIT_H

struct client;

/* 1: the shutdown now waits (c, if any, blocks until it fails); 0: nothing
 * to wait for (or SHUTDOWN_NOW), shut down at once. */
int shutdownWaitBegin(int flags, struct client *c);
void shutdownWaitCron(void);  /* finish once in sync or at the deadline */
void shutdownWaitAbort(void); /* SHUTDOWN ABORT: errors to the waiters */
int shutdownWaitActive(void);
long long shutdownWaitRemainingMs(void); /* INFO shutdown_in_milliseconds */

#endif
