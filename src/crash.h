/* crash: the bug report written when the process dies of a fatal signal
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, which a failed serverAssert
 * raises through abort()). See crash.c. */
#ifndef CAIRN_CRASH_H
#define CAIRN_CRASH_H
#include <stdint.h>

/* Installs the handlers on an alternate stack (so a stack overflow is
 * reported too). Called once at start-up, after the log is configured. */
void crashInstallHandlers(void);

/* DEBUG SEGFAULT: a real invalid write (to a read-only page), so the
 * report shows what a genuine crash shows. */
/* The instruction the signal interrupted, from the machine context (the
 * third argument of an SA_SIGINFO handler); 0 where not known. */
uintptr_t crashContextPC(void *uc);

void crashDebugSegfault(void) __attribute__((noreturn));

#endif
