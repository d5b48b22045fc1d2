/* log: the server log and assertions (implemented in log.c), in a header
 * of their own so modules that need nothing else (snapshots) can
 * log. Messages go to the logfile, stdout or syslog as configured;
 * levels are config.h's LL_*. */
#ifndef CAIRN_LOG_H
#define CAIRN_LOG_H
#include "config.h"

void serverLog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void serverLogRaw(int level, const char *msg);
void serverLogFromSignal(int level, const char *msg);
#define serverAssert(e) ((e) ? (void)0 : (serverAssertFail(#e, __FILE__, __LINE__), __builtin_unreachable()))
void serverAssertFail(const char *expr, const char *file, int line) __attribute__((noreturn));
void serverPanic(const char *msg) __attribute__((noreturn));

#endif
