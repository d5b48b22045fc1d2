/* sentinel: where `stream` and `full` find the source when redis-sentinel
 * manages it (--sentinel HOST:PORT[,HOST:PORT...] --master NAME).
 *
 *   backupSentinelPrimary(list, name) --> for each sentinel in turn:
 *     connect --> SENTINEL get-master-addr-by-name NAME --> *2 ip port
 *   the first answer wins; a sentinel that is down or does not know NAME
 *   is skipped (and named in *err if none answers).
 *
 * stream.c asks before every connection, so after a failover the next
 * connect goes to the promoted replica, which continues the stream by
 * PSYNC2's second replication ID. Sentinels are reached over plain TCP
 * without AUTH (the data nodes may still use --tls and --user/--pass). */
#include "backup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The reply, read until it is complete: an error or null line, or the
 * five lines of *2 $len ip $len port. 0, or -1 if the peer went away. */
static int sentinelReadReply(int fd, sds *reply) {
    char buf[512];
    while (1) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        *reply = sdscatlen(*reply, buf, (size_t)n);
        const char *s = *reply;
        if (s[0] != '*' || s[1] == '-') {
            if (strstr(s, "\r\n")) return 0;
            continue;
        }
        int lines = 0;
        for (const char *p = s; (p = strstr(p, "\r\n")); p += 2) lines++;
        if (lines >= 5) return 0;
        if (sdslen(*reply) > 4096) return -1;
    }
}

/* One sentinel's answer: 1 with *host and *port, 0 (reason in *why) if not. */
static int sentinelAsk(const char *addr, const char *name, int timeout_s, sds *host, int *port,
                       sds *why) {
    sds shost = NULL;
    int sport;
    if (!backupSplitServer(addr, &shost, &sport)) {
        *why = sdscatprintf(sdsempty(), "%s: not HOST:PORT", addr);
        return 0;
    }
    sds err = NULL;
    int fd = backupConnect(shost, sport, timeout_s, &err);
    sdsfree(shost);
    if (fd == -1) {
        *why = err;
        return 0;
    }
    sds cmd = sdscatprintf(
        sdsempty(), "*3\r\n$8\r\nSENTINEL\r\n$23\r\nget-master-addr-by-name\r\n$%zu\r\n%s\r\n",
        strlen(name), name);
    sds reply = sdsempty();
    int ok =
        write(fd, cmd, sdslen(cmd)) == (ssize_t)sdslen(cmd) && sentinelReadReply(fd, &reply) == 0;
    close(fd);
    sdsfree(cmd);
    char ip[256];
    unsigned iplen, portlen;
    int p = 0, used = 0;
    if (ok && sscanf(reply, "*2\r\n$%u\r\n%n", &iplen, &used) == 1 && iplen < sizeof(ip) &&
        sdslen(reply) >= (size_t)used + iplen + 2) {
        memcpy(ip, reply + used, iplen);
        ip[iplen] = '\0';
        const char *rest = reply + used + iplen + 2;
        if (sscanf(rest, "$%u\r\n%d", &portlen, &p) == 2 && p > 0 && p <= 65535) {
            *host = sdsnew(ip);
            *port = p;
            sdsfree(reply);
            return 1;
        }
    }
    *why = ok ? sdscatprintf(sdsempty(), "sentinel %s does not know a primary named %s", addr, name)
              : sdscatprintf(sdsempty(), "sentinel %s did not answer", addr);
    sdsfree(reply);
    return 0;
}

int backupSentinelPrimary(const char *list, const char *name, int timeout_s, sds *host, int *port,
                          sds *err) {
    int n;
    sds *addrs = sdssplitlen(list, (ssize_t)strlen(list), ",", 1, &n);
    sds why = NULL;
    int found = 0;
    for (int j = 0; j < n && !found; j++) {
        sdsfree(why);
        why = NULL;
        found = sentinelAsk(addrs[j], name, timeout_s, host, port, &why);
    }
    sdsfreesplitres(addrs, n);
    if (!found)
        *err = why ? why : sdsnew("no sentinel given");
    else
        sdsfree(why);
    return found ? 0 : -1;
}
