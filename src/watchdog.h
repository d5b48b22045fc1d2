/* watchdog: SIGALRM stack report when the main thread is stuck longer
 * than watchdog-period milliseconds. See watchdog.c. */
#ifndef CAIRN_WATCHDOG_H
#define CAIRN_WATCHDOG_H

/* Arms (period > 0, raised to two cron ticks at least) or disarms the
 * watchdog from cfg.watchdog_period: the config hook, and at start-up. */
int watchdogApply(const char **err);

/* Each cron tick: push the pending alarm one period away. */
void watchdogCron(void);

#endif
