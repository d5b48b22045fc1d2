/* oom.c -- oom-score-adj: the kernel's OOM-killer bias of this process,
 * as Redis sets it. Callers name the process' role (primary, replica,
 * fork child: the three oom-score-adj-values); the setting and values come
 * from cfg; the result goes to /proc/self/oom_score_adj. The value found
 * before cairn first touched it is the base: "relative" adds the
 * configured value to it, "absolute" replaces it, and turning the setting
 * off writes the base back. */
#include "oom.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int adjusted, base;

int oomScoreAdjApply(int cls, const char **err) {
    static const char *fail = "Failed to set current oom_score_adj. Check server logs.";
    char buf[32];
    int val;
    if (cfg.oom_score_adj != OOM_SCORE_ADJ_NO) {
        if (!adjusted) {
            int fd = open("/proc/self/oom_score_adj", O_RDONLY);
            ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
            if (fd >= 0) close(fd);
            if (n < 0) {
                serverLog(LL_WARNING, "Unable to read oom_score_adj: %s", strerror(errno));
                if (err) *err = fail;
                return 0;
            }
            buf[n] = '\0';
            base = atoi(buf);
            adjusted = 1;
        }
        val = cfg.oom_score_adj_values[cls];
        if (cfg.oom_score_adj == OOM_SCORE_RELATIVE) val += base;
        if (val > 1000) val = 1000;
        if (val < -1000) val = -1000;
    } else if (adjusted) {
        adjusted = 0;
        val = base;
    } else {
        return 1;
    }
    int len = snprintf(buf, sizeof(buf), "%d\n", val);
    int fd = open("/proc/self/oom_score_adj", O_WRONLY);
    if (fd < 0 || write(fd, buf, (size_t)len) != len) {
        serverLog(LL_WARNING, "Unable to write oom_score_adj: %s", strerror(errno));
        if (fd >= 0) close(fd);
        if (err) *err = fail;
        return 0;
    }
    close(fd);
    return 1;
}
