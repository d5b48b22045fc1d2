/* event: epoll loop, file events and timers (see event.h for the model).
 *
 * Data enters as readiness from epoll_wait and as timers created by the
 * server; it leaves as calls to the registered procs. The loop owns its arrays;
 * clientData pointers belong to whoever registered them. */
#include "event.h"
#include "zmalloc.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

typedef struct fileEvent {
    int mask;
    evFileProc *rproc, *wproc;
    void *clientData;
} fileEvent;

typedef struct timeEvent {
    long long id;
    long long when_us; /* monotonic */
    evTimeProc *proc;
    void *clientData;
    int deleted;
    struct timeEvent *next;
} timeEvent;

struct eventLoop {
    int epfd;
    int setsize;
    int maxfd;
    fileEvent *events;
    struct epoll_event *fired;
    timeEvent *timers;
    long long next_timer_id;
    int stop;
    int poll_now; /* set by beforeSleep: don't block in this turn's epoll_wait */
    int spin_us;  /* set by beforeSleep: poll this long before blocking (elSpinBeforeSleep) */
    evSleepProc *beforesleep, *aftersleep;
    /* Held by the loop thread except while it blocks in epoll_wait with
     * `lendable` set: a thread that takes it (elTryBorrow) may act for the
     * loop meanwhile. Without a borrower (no AOF writer) the loop does not
     * touch it at all. */
    pthread_mutex_t idle;
    int lendable;
};

eventLoop *elCreate(int setsize) {
    eventLoop *el = zcalloc(sizeof(*el));
    el->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (el->epfd == -1) {
        zfree(el);
        return NULL;
    }
    el->setsize = setsize;
    el->maxfd = -1;
    el->events = zcalloc(sizeof(fileEvent) * setsize);
    el->fired = zcalloc(sizeof(struct epoll_event) * setsize);
    pthread_mutex_init(&el->idle, NULL);
    pthread_mutex_lock(&el->idle);
    return el;
}

void elDelete(eventLoop *el) {
    pthread_mutex_unlock(&el->idle);
    pthread_mutex_destroy(&el->idle);
    close(el->epfd);
    zfree(el->events);
    zfree(el->fired);
    timeEvent *te = el->timers;
    while (te) {
        timeEvent *next = te->next;
        zfree(te);
        te = next;
    }
    zfree(el);
}

int elGetSetSize(eventLoop *el) { return el->setsize; }

int elResize(eventLoop *el, int setsize) {
    if (setsize == el->setsize) return EV_OK;
    if (el->maxfd >= setsize) return EV_ERR;
    el->events = zrealloc(el->events, sizeof(fileEvent) * setsize);
    el->fired = zrealloc(el->fired, sizeof(struct epoll_event) * setsize);
    for (int i = el->setsize; i < setsize; i++) el->events[i].mask = EV_NONE;
    el->setsize = setsize;
    return EV_OK;
}

static int elUpdateEpoll(eventLoop *el, int fd, int oldmask, int newmask) {
    struct epoll_event ee = {0};
    ee.events = 0;
    if (newmask & EV_READABLE) ee.events |= EPOLLIN;
    if (newmask & EV_WRITABLE) ee.events |= EPOLLOUT;
    ee.data.fd = fd;
    int op = oldmask == EV_NONE ? EPOLL_CTL_ADD
             : (newmask & (EV_READABLE | EV_WRITABLE)) == 0 ? EPOLL_CTL_DEL
                                                             : EPOLL_CTL_MOD;
    return epoll_ctl(el->epfd, op, fd, &ee);
}

int elAddFile(eventLoop *el, int fd, int mask, evFileProc *proc, void *clientData) {
    if (fd >= el->setsize) {
        errno = ERANGE;
        return EV_ERR;
    }
    fileEvent *fe = &el->events[fd];
    int newmask = fe->mask | mask;
    if ((newmask & (EV_READABLE | EV_WRITABLE)) != (fe->mask & (EV_READABLE | EV_WRITABLE)) &&
        elUpdateEpoll(el, fd, fe->mask & (EV_READABLE | EV_WRITABLE),
                      newmask & (EV_READABLE | EV_WRITABLE)) == -1)
        return EV_ERR;
    fe->mask = newmask;
    if (mask & EV_READABLE) fe->rproc = proc;
    if (mask & EV_WRITABLE) fe->wproc = proc;
    fe->clientData = clientData;
    if (fd > el->maxfd) el->maxfd = fd;
    return EV_OK;
}

void elDelFile(eventLoop *el, int fd, int mask) {
    if (fd >= el->setsize) return;
    fileEvent *fe = &el->events[fd];
    if (fe->mask == EV_NONE) return;
    /* Dropping writability also drops the barrier that only makes sense with it. */
    if (mask & EV_WRITABLE) mask |= EV_BARRIER;
    int newmask = fe->mask & ~mask;
    if ((newmask & (EV_READABLE | EV_WRITABLE)) != (fe->mask & (EV_READABLE | EV_WRITABLE)))
        elUpdateEpoll(el, fd, fe->mask & (EV_READABLE | EV_WRITABLE),
                      newmask & (EV_READABLE | EV_WRITABLE));
    fe->mask = newmask;
    if (fd == el->maxfd && fe->mask == EV_NONE) {
        int j;
        for (j = el->maxfd - 1; j >= 0; j--)
            if (el->events[j].mask != EV_NONE) break;
        el->maxfd = j;
    }
}

int elGetFileMask(eventLoop *el, int fd) {
    if (fd >= el->setsize) return 0;
    return el->events[fd].mask;
}

long long elAddTimer(eventLoop *el, long long ms, evTimeProc *proc, void *clientData) {
    timeEvent *te = zmalloc(sizeof(*te));
    te->id = el->next_timer_id++;
    te->when_us = (long long)monotonicUs() + ms * 1000;
    te->proc = proc;
    te->clientData = clientData;
    te->deleted = 0;
    te->next = el->timers;
    el->timers = te;
    return te->id;
}

int elDelTimer(eventLoop *el, long long id) {
    for (timeEvent *te = el->timers; te; te = te->next) {
        if (te->id == id) {
            te->deleted = 1; /* freed by the timer pass, which may be iterating */
            return EV_OK;
        }
    }
    return EV_ERR;
}

void elSetBeforeSleep(eventLoop *el, evSleepProc *proc) { el->beforesleep = proc; }
void elSetAfterSleep(eventLoop *el, evSleepProc *proc) { el->aftersleep = proc; }

/* Microseconds until the earliest timer, or -1 if none. */
static long long elNearestTimer(eventLoop *el) {
    long long nearest = -1;
    for (timeEvent *te = el->timers; te; te = te->next)
        if (!te->deleted && (nearest == -1 || te->when_us < nearest)) nearest = te->when_us;
    if (nearest == -1) return -1;
    long long now = (long long)monotonicUs();
    return nearest > now ? nearest - now : 0;
}

static int elProcessTimers(eventLoop *el) {
    int processed = 0;
    long long maxid = el->next_timer_id - 1; /* timers created by procs wait a turn */
    timeEvent **pp = &el->timers;
    while (*pp) {
        timeEvent *te = *pp;
        if (te->deleted) {
            *pp = te->next;
            zfree(te);
            continue;
        }
        if (te->id <= maxid && (long long)monotonicUs() >= te->when_us) {
            long long ret = te->proc(el, te->id, te->clientData);
            processed++;
            if (ret == EV_NOMORE) te->deleted = 1;
            else te->when_us = (long long)monotonicUs() + ret * 1000;
        }
        pp = &te->next;
    }
    return processed;
}

static int elProcess(eventLoop *el, int dontwait, int timers) {
    int processed = 0;
    long long wait_us = dontwait ? 0 : elNearestTimer(el);
    if (el->beforesleep) el->beforesleep(el);
    int timeout_ms = wait_us < 0 ? -1 : (int)((wait_us + 999) / 1000);
    if (el->stop || el->poll_now) timeout_ms = 0;
    el->poll_now = 0;
    int spin = el->spin_us;
    el->spin_us = 0;
    int lend = el->lendable;
    if (lend) pthread_mutex_unlock(&el->idle);
    int n = 0;
    if (spin > 0 && timeout_ms != 0) {
        long long start = (long long)monotonicUs(), until = start + spin;
        while ((n = epoll_wait(el->epfd, el->fired, el->setsize, 0)) == 0 &&
               (long long)monotonicUs() < until)
            sched_yield();
        /* (the poll counts against a timer's wait) */
        if (timeout_ms > 0) {
            long long left = timeout_ms - ((long long)monotonicUs() - start) / 1000;
            timeout_ms = left > 0 ? (int)left : 0;
        }
    }
    if (n == 0) n = epoll_wait(el->epfd, el->fired, el->setsize, timeout_ms);
    if (lend) pthread_mutex_lock(&el->idle);
    if (el->aftersleep) el->aftersleep(el);
    for (int j = 0; j < n; j++) {
        struct epoll_event *e = &el->fired[j];
        int fd = e->data.fd;
        fileEvent *fe = &el->events[fd];
        int mask = 0;
        if (e->events & EPOLLIN) mask |= EV_READABLE;
        if (e->events & EPOLLOUT) mask |= EV_WRITABLE;
        /* Errors and hangups are reported to whichever handler is installed so
         * the read/write call sees the failure and cleans up. */
        if (e->events & (EPOLLERR | EPOLLHUP)) mask |= EV_READABLE | EV_WRITABLE;
        int invert = fe->mask & EV_BARRIER;
        int fired = 0;
        if (!invert && (fe->mask & mask & EV_READABLE)) {
            fe->rproc(el, fd, fe->clientData, mask);
            fired++;
            fe = &el->events[fd]; /* the proc may have resized the array */
        }
        if (fe->mask & mask & EV_WRITABLE) {
            if (!fired || fe->wproc != fe->rproc) {
                fe->wproc(el, fd, fe->clientData, mask);
                fired++;
            }
        }
        if (invert) {
            fe = &el->events[fd];
            if ((fe->mask & mask & EV_READABLE) && (!fired || fe->wproc != fe->rproc)) {
                fe->rproc(el, fd, fe->clientData, mask);
            }
        }
        processed++;
    }
    if (timers) processed += elProcessTimers(el);
    return processed;
}

int elProcessEvents(eventLoop *el, int dontwait) { return elProcess(el, dontwait, 1); }

int elProcessFileEventsNow(eventLoop *el) { return elProcess(el, 1, 0); }

void elMain(eventLoop *el) {
    el->stop = 0;
    while (!el->stop) elProcessEvents(el, 0);
}

void elStop(eventLoop *el) { el->stop = 1; }

void elPollNow(eventLoop *el) { el->poll_now = 1; }

void elSpinBeforeSleep(eventLoop *el, int us) { el->spin_us = us; }

void elSetLendable(eventLoop *el, int on) { el->lendable = on; }

int elTryBorrow(eventLoop *el) { return pthread_mutex_trylock(&el->idle) == 0; }

void elGiveBack(eventLoop *el) { pthread_mutex_unlock(&el->idle); }
