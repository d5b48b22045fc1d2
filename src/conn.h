/* conn: the connection abstraction between sockets and clients.
 *
 * A connection is a socket plus a type (a vtable). The client layer only
 * calls connRead/connWrite/connWritev/connSetReadHandler/... and never sees
 * the fd's kind: TLS (conn_tls.c) is another connType, and the command core
 * does not know which one it serves. Plain TCP and Unix sockets share the
 * socket implementation and differ only in how the peer is named.
 *
 * Ownership: the connection owns its fd; connClose closes both. private_data
 * (the client) belongs to the caller. */
#ifndef CAIRN_CONN_H
#define CAIRN_CONN_H
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

typedef struct connection connection;
typedef void (*connCallback)(connection *conn);

#define CONN_STATE_CONNECTING 4 /* an outbound connect in progress */
#define CONN_STATE_CONNECTED 1
#define CONN_STATE_CLOSED    2
#define CONN_STATE_ERROR     3

typedef struct connType {
    const char *name;
    ssize_t (*read)(connection *conn, void *buf, size_t len);
    ssize_t (*write)(connection *conn, const void *buf, size_t len);
    ssize_t (*writev)(connection *conn, const struct iovec *iov, int iovcnt);
    int (*set_read_handler)(connection *conn, connCallback cb);
    int (*set_write_handler)(connection *conn, connCallback cb, int barrier);
    void (*close)(connection *conn);
    /* "ip:port" or the socket path for peer/local addresses */
    int (*format_peer)(connection *conn, char *buf, size_t len, int local);
    /* Start a non-blocking connect; cb runs once it succeeded or failed
     * (conn->state CONNECTED or ERROR). C_ERR if it failed at once. */
    int (*connect)(connection *conn, const char *host, int port, const char *src_addr, connCallback cb);
    /* Optional: complete an accepted connection (the TLS handshake) without
     * blocking, then call cb, which owns it: state CONN_STATE_CONNECTED on
     * success, else CONN_STATE_ERROR and cb closes it. NULL: ready at once. */
    int (*accept)(connection *conn, connCallback cb);
    /* Optional: a new unconnected connection of this type (TLS needs a
     * larger struct). NULL: a plain struct connection. */
    connection *(*create)(void);
    /* Optional: after read (writing 0) or write returned EAGAIN, the poll
     * events (POLLIN/POLLOUT) that let it progress; TLS may need the other
     * direction. NULL: the call's own direction. */
    int (*sync_events)(connection *conn, int writing);
    /* Optional: why the connection failed, for the log. NULL or NULL
     * returned: strerror(last_errno). */
    const char *(*last_error)(connection *conn);
} connType;

struct connection {
    connType *type;
    int fd;
    int state;
    int last_errno;
    connCallback read_handler, write_handler;
    connCallback connect_cb; /* CONNECTING: called when the connect ends */
    void *private_data;
};

extern connType connTcpType, connUnixType;

connection *connCreateAccepted(connType *type, int fd);
/* An unconnected connection for connConnect (outbound: a replica's link
 * to its primary). */
connection *connCreate(connType *type);
static inline int connConnect(connection *c, const char *host, int port, const char *src, connCallback cb) {
    return c->type->connect(c, host, port, src, cb);
}
/* Blocking helpers for short exchanges on a connected socket, through the
 * connection's type (TLS included): wait at most timeout_ms for the whole
 * buffer / for some bytes. Return bytes written/read, or -1 (connSyncRead:
 * 0 at the end of the stream). */
ssize_t connSyncWrite(connection *c, const char *buf, size_t len, long long timeout_ms);
ssize_t connSyncRead(connection *c, void *buf, size_t len, long long timeout_ms);
static inline ssize_t connRead(connection *c, void *buf, size_t len) {
    return c->type->read(c, buf, len);
}
static inline ssize_t connWrite(connection *c, const void *buf, size_t len) {
    return c->type->write(c, buf, len);
}
static inline ssize_t connWritev(connection *c, const struct iovec *iov, int n) {
    return c->type->writev(c, iov, n);
}
static inline int connSetReadHandler(connection *c, connCallback cb) {
    return c->type->set_read_handler(c, cb);
}
static inline int connSetWriteHandler(connection *c, connCallback cb, int barrier) {
    return c->type->set_write_handler(c, cb, barrier);
}
static inline void connClose(connection *c) { c->type->close(c); }
static inline int connAccept(connection *c, connCallback cb) {
    if (!c->type->accept) {
        cb(c);
        return 0;
    }
    return c->type->accept(c, cb);
}
static inline int connFormatPeer(connection *c, char *buf, size_t len, int local) {
    return c->type->format_peer(c, buf, len, local);
}
static inline int connHasWriteHandler(connection *c) { return c->write_handler != NULL; }
static inline const char *connLastError(connection *c) {
    const char *e = c->type->last_error ? c->type->last_error(c) : NULL;
    return e ? e : strerror(c->last_errno);
}

/* Socket helpers (net setup), also in conn.c. Return fd or -1 with err set. */
int netTcpListen(char *err, size_t errlen, const char *addr, int port, int backlog);
int netUnixListen(char *err, size_t errlen, const char *path, unsigned int perm, int backlog);
int netAccept(char *err, size_t errlen, int listen_fd, char *ip, size_t iplen, int *port);
int netSetNonBlock(int fd);
int netSetTcpNoDelay(int fd);
int netSetKeepAlive(int fd, int interval);
int netFormatAddr(char *buf, size_t len, const char *ip, int port);

#endif
