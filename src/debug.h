/* debug: switches that DEBUG subcommands flip for tests (see debug.c). */
#ifndef CAIRN_DEBUG_H
#define CAIRN_DEBUG_H

int debugActiveExpireEnabled(void); /* DEBUG SET-ACTIVE-EXPIRE */
int debugCronPaused(void);          /* DEBUG PAUSE-CRON */
int debugSkipChecksum(void);        /* DEBUG SET-SKIP-CHECKSUM-VALIDATION */

#endif
