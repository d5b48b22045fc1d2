/* devcpu: the CPUs on which a file's block device completes its I/O, and
 * Linux CPU lists ("0-3,6"). See devcpu.c for why the AOF writer asks. */
#ifndef CAIRN_DEVCPU_H
#define CAIRN_DEVCPU_H

#include <pthread.h>
#include <sched.h>

/* 1 and *out set when the device under fd takes its completion interrupts
 * on a strict subset of `allowed` (where the asking thread may run); 0 when
 * there is no such preference or it cannot be known. */
int devcpuForFile(int fd, const cpu_set_t *allowed, cpu_set_t *out);

/* A CPU list as /proc and taskset write it; 0 on a syntax error or an
 * empty list. */
int devcpuParseList(const char *s, cpu_set_t *set);

/* Pin thread to a server_cpulist-style list (NULL: leave it). A bad list
 * or a refused mask is logged, naming the directive, and ignored, as the
 * server runs fine anywhere. Returns 1 when applied. */
int devcpuApply(pthread_t thread, const char *list, const char *directive);

#endif
