/* conn: socket connections (TCP and Unix) behind the connType vtable, and
 * the socket setup helpers (listen, accept, options).
 *
 * Bytes enter through connRead from the kernel and leave through
 * connWrite/connWritev; readiness is routed from the event loop to the
 * connection's read/write handler. The connection owns its fd. */
#define _GNU_SOURCE
#include "client.h"
#include "config.h"
#include "conn.h"
#include "event.h"
#include "server_state.h"
#include "util.h"
#include "zmalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static void connSocketEventHandler(eventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)fd;
    connection *conn = data;
    int invert = elGetFileMask(server.el, conn->fd) & EV_BARRIER;
    int call_read = (mask & EV_READABLE) && conn->read_handler;
    int call_write = (mask & EV_WRITABLE) && conn->write_handler;
    /* A handler may close the connection; the client layer defers frees of
     * connections in use until the next loop iteration, so conn stays valid
     * through both calls. */
    if (!invert && call_read) conn->read_handler(conn);
    if (call_write && conn->write_handler) conn->write_handler(conn);
    if (invert && call_read && conn->read_handler) conn->read_handler(conn);
}

static ssize_t connSocketRead(connection *conn, void *buf, size_t len) {
    ssize_t n = read(conn->fd, buf, len);
    if (n == 0) conn->state = CONN_STATE_CLOSED;
    else if (n < 0 && errno != EAGAIN) {
        conn->last_errno = errno;
        if (errno != EINTR) conn->state = CONN_STATE_ERROR;
    }
    return n;
}

static ssize_t connSocketWrite(connection *conn, const void *buf, size_t len) {
    ssize_t n = write(conn->fd, buf, len);
    if (n < 0 && errno != EAGAIN) {
        conn->last_errno = errno;
        if (errno != EINTR) conn->state = CONN_STATE_ERROR;
    }
    return n;
}

static ssize_t connSocketWritev(connection *conn, const struct iovec *iov, int n) {
    ssize_t w = writev(conn->fd, iov, n);
    if (w < 0 && errno != EAGAIN) {
        conn->last_errno = errno;
        if (errno != EINTR) conn->state = CONN_STATE_ERROR;
    }
    return w;
}

static int connSocketSetReadHandler(connection *conn, connCallback cb) {
    if (cb == conn->read_handler) return C_OK;
    conn->read_handler = cb;
    if (!cb) elDelFile(server.el, conn->fd, EV_READABLE);
    else if (elAddFile(server.el, conn->fd, EV_READABLE, connSocketEventHandler, conn) == EV_ERR)
        return C_ERR;
    return C_OK;
}

static int connSocketSetWriteHandler(connection *conn, connCallback cb, int barrier) {
    if (cb == conn->write_handler) return C_OK;
    conn->write_handler = cb;
    if (!cb) elDelFile(server.el, conn->fd, EV_WRITABLE);
    else if (elAddFile(server.el, conn->fd, EV_WRITABLE | (barrier ? EV_BARRIER : 0),
                       connSocketEventHandler, conn) == EV_ERR)
        return C_ERR;
    return C_OK;
}

static void connSocketClose(connection *conn) {
    if (conn->fd != -1) {
        elDelFile(server.el, conn->fd, EV_READABLE | EV_WRITABLE);
        close(conn->fd);
        conn->fd = -1;
    }
    zfree(conn);
}

static int connTcpFormatPeer(connection *conn, char *buf, size_t len, int local) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    int r = local ? getsockname(conn->fd, (struct sockaddr *)&sa, &salen)
                  : getpeername(conn->fd, (struct sockaddr *)&sa, &salen);
    char ip[NET_IP_STR_LEN];
    int port = 0;
    if (r == -1) {
        snprintf(buf, len, "?:0");
        return -1;
    }
    if (sa.ss_family == AF_INET) {
        struct sockaddr_in *s = (struct sockaddr_in *)&sa;
        inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
        port = ntohs(s->sin_port);
    } else if (sa.ss_family == AF_INET6) {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&sa;
        inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
        port = ntohs(s->sin6_port);
    } else {
        snprintf(buf, len, "?:0");
        return -1;
    }
    netFormatAddr(buf, len, ip, port);
    return 0;
}

static int connUnixFormatPeer(connection *conn, char *buf, size_t len, int local) {
    (void)conn;
    (void)local;
    /* Redis names both ends of a unix connection by the socket path + ":0". */
    snprintf(buf, len, "%s:0", cfg.unixsocket ? cfg.unixsocket : "");
    return 0;
}

/* The connect finished (writable): SO_ERROR says how. */
static void connSocketConnectDone(connection *conn) {
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1) err = errno;
    connCallback cb = conn->write_handler;
    elDelFile(server.el, conn->fd, EV_WRITABLE);
    conn->write_handler = NULL;
    if (err) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = err;
    } else {
        conn->state = CONN_STATE_CONNECTED;
    }
    conn->connect_cb = NULL;
    if (cb) cb(conn);
}

static void connSocketConnectEvent(connection *conn) {
    connCallback cb = conn->connect_cb;
    conn->write_handler = cb;
    connSocketConnectDone(conn);
}

static int connTcpConnect(connection *conn, const char *host, int port, const char *src_addr,
                          connCallback cb) {
    struct addrinfo hints = {0}, *res = NULL, *p;
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rv = getaddrinfo(host, portstr, &hints, &res);
    if (rv != 0) {
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = EHOSTUNREACH;
        return C_ERR;
    }
    int fd = -1;
    for (p = res; p; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, p->ai_protocol);
        if (fd == -1) continue;
        if (src_addr) {
            struct addrinfo *sres = NULL;
            if (getaddrinfo(src_addr, NULL, &hints, &sres) == 0) {
                if (bind(fd, sres->ai_addr, sres->ai_addrlen) == -1) {
                    close(fd);
                    fd = -1;
                }
                freeaddrinfo(sres);
            }
            if (fd == -1) continue;
        }
        if (connect(fd, p->ai_addr, p->ai_addrlen) == -1 && errno != EINPROGRESS) {
            conn->last_errno = errno;
            close(fd);
            fd = -1;
            continue;
        }
        break;
    }
    freeaddrinfo(res);
    if (fd == -1) {
        conn->state = CONN_STATE_ERROR;
        return C_ERR;
    }
    conn->fd = fd;
    conn->state = CONN_STATE_CONNECTING;
    conn->connect_cb = cb;
    conn->write_handler = connSocketConnectEvent;
    if (elAddFile(server.el, fd, EV_WRITABLE, connSocketEventHandler, conn) == EV_ERR) {
        conn->state = CONN_STATE_ERROR;
        return C_ERR;
    }
    return C_OK;
}

connType connTcpType = {
    .name = "tcp",
    .read = connSocketRead,
    .write = connSocketWrite,
    .writev = connSocketWritev,
    .set_read_handler = connSocketSetReadHandler,
    .set_write_handler = connSocketSetWriteHandler,
    .close = connSocketClose,
    .format_peer = connTcpFormatPeer,
    .connect = connTcpConnect,
};

connType connUnixType = {
    .name = "unix",
    .read = connSocketRead,
    .write = connSocketWrite,
    .writev = connSocketWritev,
    .set_read_handler = connSocketSetReadHandler,
    .set_write_handler = connSocketSetWriteHandler,
    .close = connSocketClose,
    .format_peer = connUnixFormatPeer,
};

connection *connCreate(connType *type) {
    if (type->create) return type->create();
    connection *conn = zcalloc(sizeof(*conn));
    conn->type = type;
    conn->fd = -1;
    return conn;
}

/* Wait until the connection can make progress after an EAGAIN in the
 * given direction; 1 if it may, 0 on timeout or error. */
static int connSyncWait(connection *c, int writing, long long deadline) {
    int events = writing ? POLLOUT : POLLIN;
    if (c->type->sync_events) events = c->type->sync_events(c, writing);
    struct pollfd pfd = {.fd = c->fd, .events = (short)events};
    int r;
    do {
        long long left = deadline - mstime();
        if (left <= 0) return 0;
        r = poll(&pfd, 1, (int)left);
    } while (r == -1 && errno == EINTR);
    return r > 0;
}

ssize_t connSyncWrite(connection *c, const char *buf, size_t len, long long timeout_ms) {
    long long deadline = mstime() + timeout_ms;
    size_t done = 0;
    while (done < len) {
        ssize_t n = connWrite(c, buf + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n == -1 && errno != EAGAIN && errno != EINTR) return -1;
        if (!connSyncWait(c, 1, deadline)) return -1;
    }
    return (ssize_t)done;
}

ssize_t connSyncRead(connection *c, void *buf, size_t len, long long timeout_ms) {
    long long deadline = mstime() + timeout_ms;
    while (1) {
        ssize_t n = connRead(c, buf, len);
        if (n >= 0) return n;
        if (errno != EAGAIN && errno != EINTR) return -1;
        if (!connSyncWait(c, 0, deadline)) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
}

connection *connCreateAccepted(connType *type, int fd) {
    connection *conn = zcalloc(sizeof(*conn));
    conn->type = type;
    conn->fd = fd;
    conn->state = CONN_STATE_CONNECTED;
    return conn;
}

/* ---- socket setup ---- */

int netSetNonBlock(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags == -1) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int netSetTcpNoDelay(int fd) {
    int yes = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
}

int netSetKeepAlive(int fd, int interval) {
    int yes = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof(yes)) == -1) return -1;
    /* Probe after `interval` idle seconds, then every interval/3, give up
     * after three misses: a dead peer is noticed in about 2x interval. */
    int val = interval;
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &val, sizeof(val));
    val = interval / 3 ? interval / 3 : 1;
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &val, sizeof(val));
    val = 3;
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &val, sizeof(val));
    return 0;
}

int netFormatAddr(char *buf, size_t len, const char *ip, int port) {
    return snprintf(buf, len, strchr(ip, ':') ? "[%s]:%d" : "%s:%d", ip, port);
}

int netTcpListen(char *err, size_t errlen, const char *addr, int port, int backlog) {
    struct addrinfo hints = {0}, *res = NULL, *p;
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    int v6 = addr && strchr(addr, ':');
    hints.ai_family = v6 ? AF_INET6 : AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if (addr && (!strcmp(addr, "*") || !strcmp(addr, "::*"))) addr = NULL;
    int rv = getaddrinfo(addr, portstr, &hints, &res);
    if (rv != 0) {
        snprintf(err, errlen, "%s", gai_strerror(rv));
        return -1;
    }
    int fd = -1;
    for (p = res; p; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
        if (fd == -1) continue;
        int yes = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
        if (p->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof(yes));
        if (bind(fd, p->ai_addr, p->ai_addrlen) == -1 || listen(fd, backlog) == -1) {
            snprintf(err, errlen, "%s", strerror(errno));
            close(fd);
            fd = -1;
            continue;
        }
        break;
    }
    if (fd == -1 && p == NULL && res == NULL) snprintf(err, errlen, "no address");
    freeaddrinfo(res);
    if (fd != -1) netSetNonBlock(fd);
    return fd;
}

int netUnixListen(char *err, size_t errlen, const char *path, unsigned int perm, int backlog) {
    struct sockaddr_un sa = {0};
    if (strlen(path) >= sizeof(sa.sun_path)) {
        snprintf(err, errlen, "unix socket path too long");
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd == -1) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    sa.sun_family = AF_UNIX;
    strcpy(sa.sun_path, path);
    unlink(path); /* a stale socket from a previous run would make bind fail */
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 || listen(fd, backlog) == -1) {
        snprintf(err, errlen, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    if (perm) chmod(path, perm);
    netSetNonBlock(fd);
    return fd;
}

int netAccept(char *err, size_t errlen, int listen_fd, char *ip, size_t iplen, int *port) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    int fd;
    do {
        fd = accept4(listen_fd, (struct sockaddr *)&sa, &salen, SOCK_CLOEXEC | SOCK_NONBLOCK);
    } while (fd == -1 && errno == EINTR);
    if (fd == -1) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (ip) {
        if (sa.ss_family == AF_INET) {
            struct sockaddr_in *s = (struct sockaddr_in *)&sa;
            inet_ntop(AF_INET, &s->sin_addr, ip, iplen);
            if (port) *port = ntohs(s->sin_port);
        } else if (sa.ss_family == AF_INET6) {
            struct sockaddr_in6 *s = (struct sockaddr_in6 *)&sa;
            inet_ntop(AF_INET6, &s->sin6_addr, ip, iplen);
            if (port) *port = ntohs(s->sin6_port);
        } else {
            snprintf(ip, iplen, "%s", cfg.unixsocket ? cfg.unixsocket : "");
            if (port) *port = 0;
        }
    }
    return fd;
}
