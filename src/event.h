/* event: the epoll event loop, file events and timers.
 *
 * One loop per process. File events are keyed by fd in a dense array (fds are
 * small integers); timers live in an unsorted list because the server keeps
 * only a handful (the cron, a few one-shots). Each iteration: run timers that
 * are due, call beforeSleep (where pending replies are written), epoll_wait,
 * dispatch. Readable is handled before writable for the same fd, unless the
 * fd asked for EV_BARRIER (write first, used when a reply must hit the socket
 * before more input is read, e.g. after fsync).
 *
 * The loop thread holds the loop's `idle` mutex except while it blocks in
 * epoll_wait (only once elSetLendable allowed it), so a helper thread can
 * borrow the loop there (elTryBorrow):
 * the AOF writer releases the replies its fsync made durable without
 * waking the loop thread first. */
#ifndef CAIRN_EVENT_H
#define CAIRN_EVENT_H

#define EV_OK      0
#define EV_ERR     -1
#define EV_NONE    0
#define EV_READABLE 1
#define EV_WRITABLE 2
#define EV_BARRIER 4
#define EV_NOMORE  -1

typedef struct eventLoop eventLoop;
typedef void evFileProc(eventLoop *el, int fd, void *clientData, int mask);
/* Returns the delay in ms until it should run again, or EV_NOMORE. */
typedef long long evTimeProc(eventLoop *el, long long id, void *clientData);
typedef void evSleepProc(eventLoop *el);

eventLoop *elCreate(int setsize);
void elDelete(eventLoop *el);
int elResize(eventLoop *el, int setsize);
int elGetSetSize(eventLoop *el);
int elAddFile(eventLoop *el, int fd, int mask, evFileProc *proc, void *clientData);
void elDelFile(eventLoop *el, int fd, int mask);
int elGetFileMask(eventLoop *el, int fd);
long long elAddTimer(eventLoop *el, long long ms, evTimeProc *proc, void *clientData);
int elDelTimer(eventLoop *el, long long id);
void elSetBeforeSleep(eventLoop *el, evSleepProc *proc);
void elSetAfterSleep(eventLoop *el, evSleepProc *proc);
/* Process events once; wait at most until the next timer. Returns the number
 * of events processed. */
int elProcessEvents(eventLoop *el, int dontwait);
/* One pass that does not wait and runs no timers (beforeSleep and
 * afterSleep still run): serving clients from inside a long job, such as
 * loading a snapshot, without letting the cron act on a half-built state. */
int elProcessFileEventsNow(eventLoop *el);
void elMain(eventLoop *el);
void elStop(eventLoop *el);
/* From beforeSleep: this turn's wait must not block (work is ready that no
 * fd will announce, e.g. input already decrypted inside OpenSSL). */
void elPollNow(eventLoop *el);
/* From beforeSleep: in this turn, poll (yielding the CPU between looks)
 * for up to us microseconds before blocking in epoll_wait, because an
 * event is due that soon and waking a halted CPU costs more. A lender's
 * borrower may act meanwhile, as while it blocks. */
void elSpinBeforeSleep(eventLoop *el, int us);
/* From another thread: act for the loop while its thread is blocked in
 * epoll_wait (it cannot return from there until elGiveBack). 1: borrowed,
 * the caller may touch what the loop thread owns, briefly; 0: the loop
 * thread is running (or waiting for something else), leave it alone. */
int elTryBorrow(eventLoop *el);
/* From the loop thread: whether a helper may borrow the loop at all (0 by
 * default, and elTryBorrow then always fails). */
void elSetLendable(eventLoop *el, int on);
void elGiveBack(eventLoop *el);

#endif
