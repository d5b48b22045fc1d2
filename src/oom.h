/* oom.h -- the kernel OOM-killer bias (oom-score-adj) of this process. */
#ifndef CAIRN_OOM_H
#define CAIRN_OOM_H

/* The classes of oom-score-adj-values, in the directive's order. */
#define OOM_CLASS_PRIMARY 0
#define OOM_CLASS_REPLICA 1
#define OOM_CLASS_CHILD   2

/* Write the value of class `cls` (or the base, when oom-score-adj is off)
 * to /proc/self/oom_score_adj. Returns 1, or 0 with *err set (err may be
 * NULL) and the reason logged. */
int oomScoreAdjApply(int cls, const char **err);

#endif
