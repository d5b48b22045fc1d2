/* devcpu: the CPUs on which a file's block device completes its I/O.
 *
 * Why: a device with one completion queue (virtio-blk, AHCI, most cloud
 * volumes) raises its interrupt on one CPU. A thread that waits in fsync
 * is woken from there; when it sleeps on another CPU, every fsync pays a
 * cross-CPU wake-up, and on a VM whose idle vCPUs halt that costs tens of
 * microseconds, with the journal's own hand-offs more (measured on 2 vCPUs,
 * ext4 on virtio-blk: fdatasync of an AOF append ~205-225 us with the
 * writer on the interrupt's CPU, ~295-325 us on the other; one client under
 * appendfsync always went from 3,600-3,800 SETs/s to 4,800-6,000). The AOF
 * writer (aof_always.c) asks here where to run. A multi-queue device (NVMe)
 * spreads its interrupts over every CPU, and the answer is then "anywhere".
 *
 * Also here: devcpuParseList and devcpuApply, the server_cpulist-style
 * directives' lists.
 *
 * How data enters: a file descriptor. What is read: fstat's st_dev,
 * /sys/dev/block/MAJ:MIN (a partition's parent disk), that disk's device
 * chain up to the bus device that owns the interrupts (msi_irqs/ or irq),
 * /proc/interrupts (which of those carry the I/O: the busy ones, not the
 * configuration vector) and /proc/irq/N/effective_affinity_list. How it
 * leaves: a CPU set in the caller's cpu_set_t. Nothing is allocated that
 * outlives a call. Anything missing (device-mapper, tmpfs, no sysfs, a
 * container) just answers "no preference". */
#define _GNU_SOURCE
#include "devcpu.h"
#include "log.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define DEVCPU_MAX_IRQS 64

/* "0-3,6,8-9", or with a stride as Redis' cpulist directives allow
 * ("0-7:2"), into set; returns 0 on a syntax error. */
int devcpuParseList(const char *s, cpu_set_t *set) {
    CPU_ZERO(set);
    while (*s && *s != '\n') {
        char *end;
        long lo = strtol(s, &end, 10);
        if (end == s || lo < 0 || lo >= CPU_SETSIZE) return 0;
        long hi = lo, stride = 1;
        s = end;
        if (*s == '-') {
            hi = strtol(s + 1, &end, 10);
            if (end == s + 1 || hi < lo || hi >= CPU_SETSIZE) return 0;
            s = end;
            if (*s == ':') {
                stride = strtol(s + 1, &end, 10);
                if (end == s + 1 || stride < 1) return 0;
                s = end;
            }
        }
        for (long c = lo; c <= hi; c += stride) CPU_SET((int)c, set);
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return 0;
    }
    return CPU_COUNT(set) > 0;
}

/* a + "/" + b into out; 0 when it does not fit. */
static int pathJoin(char *out, size_t len, const char *a, const char *b) {
    int n = snprintf(out, len, "%s/%s", a, b);
    return n >= 0 && (size_t)n < len;
}

static int readSmall(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n > 0;
}

/* The interrupts of the bus device under the disk at sysfs path dev. */
static int devIrqs(const char *disk, int *irqs, int max) {
    char path[PATH_MAX], dev[PATH_MAX];
    if (!pathJoin(path, sizeof(path), disk, "device") || !realpath(path, dev)) return 0;
    for (int up = 0; up < 6 && strncmp(dev, "/sys/devices/", 13) == 0; up++) {
        int n = 0;
        DIR *d = pathJoin(path, sizeof(path), dev, "msi_irqs") ? opendir(path) : NULL;
        if (d) {
            struct dirent *e;
            int more = 0;
            while ((e = readdir(d)))
                if (isdigit((unsigned char)e->d_name[0])) {
                    if (n < max)
                        irqs[n++] = atoi(e->d_name);
                    else
                        more = 1;
                }
            closedir(d);
            /* (so many vectors are one per CPU: a multi-queue device) */
            if (more) return 0;
            if (n) return n;
        }
        char buf[32];
        if (pathJoin(path, sizeof(path), dev, "irq") && readSmall(path, buf, sizeof(buf)) &&
            atoi(buf) > 0) {
            irqs[0] = atoi(buf);
            return 1;
        }
        char *slash = strrchr(dev, '/');
        if (!slash) break;
        *slash = '\0';
    }
    return 0;
}

/* Total count of each irq over all CPUs, from /proc/interrupts. */
static void irqCounts(const int *irqs, int n, unsigned long long *counts) {
    memset(counts, 0, sizeof(*counts) * (size_t)n);
    FILE *f = fopen("/proc/interrupts", "r");
    if (!f) return;
    char line[4096];
    int ncpu = -1;
    while (fgets(line, sizeof(line), f)) {
        if (ncpu < 0) { /* the header: one column per CPU */
            ncpu = 0;
            for (char *p = line; (p = strstr(p, "CPU")); p += 3) ncpu++;
            continue;
        }
        char *p = line, *end;
        long irq = strtol(p, &end, 10);
        if (end == p || *end != ':') continue;
        int k;
        for (k = 0; k < n && irqs[k] != irq; k++)
            ;
        if (k == n) continue;
        p = end + 1;
        for (int c = 0; c < ncpu; c++) {
            unsigned long long v = strtoull(p, &end, 10);
            if (end == p) break;
            counts[k] += v;
            p = end;
        }
    }
    fclose(f);
}

int devcpuForFile(int fd, const cpu_set_t *allowed, cpu_set_t *out) {
    struct stat st;
    if (fstat(fd, &st) == -1 || major(st.st_dev) == 0) return 0;
    char path[PATH_MAX], disk[PATH_MAX];
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
    if (!realpath(path, disk)) return 0;
    if (!pathJoin(path, sizeof(path), disk, "partition")) return 0;
    if (access(path, F_OK) == 0) {
        char *slash = strrchr(disk, '/');
        if (!slash) return 0;
        *slash = '\0';
    }
    int irqs[DEVCPU_MAX_IRQS];
    int n = devIrqs(disk, irqs, DEVCPU_MAX_IRQS);
    if (n == 0) return 0;
    unsigned long long counts[DEVCPU_MAX_IRQS], busiest = 0;
    irqCounts(irqs, n, counts);
    for (int k = 0; k < n; k++)
        if (counts[k] > busiest) busiest = counts[k];
    if (busiest == 0) return 0;
    /* The vectors that carry the I/O: a configuration or error vector
     * fires a handful of times against the queues' millions. */
    cpu_set_t set, one;
    CPU_ZERO(&set);
    for (int k = 0; k < n; k++) {
        if (counts[k] * 100 < busiest) continue;
        char buf[256];
        snprintf(path, sizeof(path), "/proc/irq/%d/effective_affinity_list", irqs[k]);
        if (!readSmall(path, buf, sizeof(buf)) || !devcpuParseList(buf, &one)) {
            snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irqs[k]);
            if (!readSmall(path, buf, sizeof(buf)) || !devcpuParseList(buf, &one)) return 0;
        }
        CPU_OR(&set, &set, &one);
    }
    CPU_AND(&set, &set, allowed);
    /* Only a strict subset of where we may run is a preference. */
    if (CPU_COUNT(&set) == 0 || CPU_EQUAL(&set, allowed)) return 0;
    *out = set;
    return 1;
}

int devcpuApply(pthread_t thread, const char *list, const char *directive) {
    cpu_set_t set;
    if (!list) return 0;
    if (!devcpuParseList(list, &set)) {
        serverLog(LL_WARNING, "Ignoring %s '%s': not a CPU list", directive, list);
        return 0;
    }
    int err = pthread_setaffinity_np(thread, sizeof(set), &set);
    if (err) {
        serverLog(LL_WARNING, "Ignoring %s '%s': %s", directive, list, strerror(err));
        return 0;
    }
    return 1;
}
