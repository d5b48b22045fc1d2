/* conn_tls: TLS connections (OpenSSL) behind the connType vtable.
 *
 * Ciphertext enters from the socket inside SSL_read and leaves inside
 * SSL_write; the client layer above sees plaintext through connRead/
 * connWrite/connWritev exactly as with a plain socket. Readiness from the
 * event loop goes to one handler per connection, which drives the handshake
 * until it is done and then calls the read/write handlers, retrying a read
 * that wanted a write when the socket turns writable and a write that wanted
 * a read when it turns readable.
 *
 * The handshake is role-neutral (SSL_do_handshake): an accepted connection
 * is put in the accept state; an outbound one (a replica's link to its
 * primary, made from tlsClientCtx(), which verifies the peer against the
 * CA) first completes its TCP connect through the socket type, then is put
 * in the connect state and runs through the same machinery:
 *
 *   connConnect --TCP connect (conn.c)--> tlsConnectTcpDone --SSL_connect
 *   steps on WANT_READ/WANT_WRITE--> CONNECTED, or ERROR with the reason in
 *   connLastError; either way the caller's callback runs once.
 *
 * Three lists, through the same links (a connection is in at most one):
 *  - handshaking: connections still in their handshake, for the timeout,
 *    and failed ones lingering until the peer has read the alert (closed
 *    by their owner already, freed here);
 *  - pending: connections whose last read filled the caller's buffer while
 *    OpenSSL still held decrypted bytes, which epoll will never report;
 *    tlsProcessPending (before the loop sleeps) calls their read handlers;
 *  - serving: the pending list being served in that pass.
 *
 * The hot path: contexts read ahead (tls.c), so one read(2) per readable
 * event serves every record that arrived; SSL_has_pending, a field check,
 * says whether another record is already in memory (SSL_pending would
 * count only the current record's decrypted bytes and miss raw ones). The
 * OpenSSL error queue is emptied only after an error was reported (tls.c
 * keeps the same rule), never before each call.
 *
 * Ownership: the connection owns its fd and SSL; connClose frees both. */
#include "conn.h"
#include "conn_tls.h"
#include "event.h"
#include "log.h"
#include "server_state.h"
#include "tls.h"
#include "util.h"
#include "zmalloc.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A handshake not done after this long is abandoned, so stalled peers
 * cannot hold descriptors forever (they do not count against maxclients). */
#define TLS_HANDSHAKE_TIMEOUT_MS 10000
/* The largest TLS record's plaintext: scattered small replies are gathered
 * into one record instead of one record each. */
#define TLS_GATHER_BYTES 16384

#define TLS_HANDSHAKING      (1 << 0)
#define TLS_READ_WANTS_WRITE (1 << 1)
#define TLS_WRITE_WANTS_READ (1 << 2)
#define TLS_BARRIER          (1 << 3)
#define TLS_LINGER_ON_CLOSE  (1 << 4) /* a failed handshake: close gracefully */
#define TLS_LINGERING        (1 << 5) /* closed by its owner, draining the peer's input */
#define TLS_OUTBOUND         (1 << 6) /* made by connConnect: we are the TLS client */
#define TLS_READ_DEFERRED    (1 << 7) /* tlsRead returned bytes; its end/error comes next */
/* How long a failed handshake's socket is drained before it is closed. */
#define TLS_LINGER_MS 2000

typedef struct tlsConn {
    connection c; /* first: a connection * is a tlsConn * */
    SSL *ssl;
    int flags;
    int mask;    /* events registered with the loop */
    int hs_want; /* during the handshake: the event it waits for */
    long long hs_start_ms;
    connCallback hs_done;
    char *error; /* outbound: why it failed (owned), for connLastError */
    int deferred_errno; /* TLS_READ_DEFERRED: 0 = end of stream, else the error */
    struct tlsConn *prev, *next, **list;
} tlsConn;

static tlsConn *handshaking, *pending, *serving;

static void tlsListAdd(tlsConn *t, tlsConn **list) {
    t->prev = NULL;
    t->next = *list;
    if (*list) (*list)->prev = t;
    *list = t;
    t->list = list;
}

static void tlsListRemove(tlsConn *t) {
    if (!t->list) return;
    if (t->prev) t->prev->next = t->next;
    else *t->list = t->next;
    if (t->next) t->next->prev = t->prev;
    t->prev = t->next = NULL;
    t->list = NULL;
}

static void tlsEventHandler(eventLoop *el, int fd, void *data, int mask);
static void tlsLingerDrain(tlsConn *t);
static void tlsFree(tlsConn *t);

/* Register exactly the events the connection's state asks for. Called only
 * when a handler or a want-flag changes, never on an ordinary read/write. */
static void tlsUpdateEvents(tlsConn *t) {
    int want = 0;
    if (t->flags & TLS_HANDSHAKING) {
        want = t->hs_want;
    } else {
        int f = t->flags;
        if ((t->c.read_handler && !(f & TLS_READ_WANTS_WRITE)) || (f & TLS_WRITE_WANTS_READ))
            want |= EV_READABLE;
        if ((t->c.write_handler && !(f & TLS_WRITE_WANTS_READ)) || (f & TLS_READ_WANTS_WRITE))
            want |= EV_WRITABLE;
    }
    if (want == t->mask || t->c.fd == -1) return;
    int del = t->mask & ~want, add = want & ~t->mask;
    if (del) elDelFile(server.el, t->c.fd, del);
    if (add && elAddFile(server.el, t->c.fd, add, tlsEventHandler, t) == EV_ERR) {
        want &= ~add;
        t->c.state = CONN_STATE_ERROR;
    }
    t->mask = want;
}

/* The OpenSSL reason of a failure, for the log; empties the error queue. */
static const char *tlsErrorReason(char *buf, size_t len, int sslerr) {
    unsigned long e = ERR_get_error();
    if (e) ERR_error_string_n(e, buf, len);
    else if (sslerr == SSL_ERROR_SYSCALL && errno) snprintf(buf, len, "%s", strerror(errno));
    else snprintf(buf, len, "connection closed");
    ERR_clear_error();
    return buf;
}

static void tlsSetError(tlsConn *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tlsSetError(tlsConn *t, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    zfree(t->error);
    t->error = zstrdup(buf);
}

static void tlsHandshakeEnd(tlsConn *t, int ok) {
    tlsListRemove(t);
    t->flags &= ~TLS_HANDSHAKING;
    t->c.state = ok ? CONN_STATE_CONNECTED : CONN_STATE_ERROR;
    tlsUpdateEvents(t);
    connCallback cb = t->hs_done;
    t->hs_done = NULL;
    /* The callback owns the connection now and may close it. */
    cb(&t->c);
}

static void tlsHandshakeStep(tlsConn *t) {
    int r = SSL_do_handshake(t->ssl);
    if (r == 1) {
        tlsHandshakeEnd(t, 1);
        return;
    }
    int e = SSL_get_error(t->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        t->hs_want = e == SSL_ERROR_WANT_READ ? EV_READABLE : EV_WRITABLE;
        tlsUpdateEvents(t);
        return;
    }
    char reason[256], peer[128];
    connTcpType.format_peer(&t->c, peer, sizeof(peer), 0);
    t->c.last_errno = e == SSL_ERROR_SYSCALL && errno ? errno : EPROTO;
    long verify = SSL_get_verify_result(t->ssl);
    const char *why = tlsErrorReason(reason, sizeof(reason), e);
    const char *vsep = verify != X509_V_OK ? ": " : "";
    const char *vwhy = verify != X509_V_OK ? X509_verify_cert_error_string(verify) : "";
    if (t->flags & TLS_OUTBOUND) {
        /* The owner's callback logs it, saying what the link was for. */
        tlsSetError(t, "TLS handshake with %s failed: %s%s%s", peer, why, vsep, vwhy);
    } else {
        /* As Redis, at warning level: a refused certificate is an
         * operator's business. Which check failed is worth saying. */
        serverLog(LL_WARNING, "Error accepting a client connection: %s%s%s (addr=%s)", why, vsep,
                  vwhy, peer);
    }
    /* The alert OpenSSL just queued must reach the peer before the close:
     * closing with its next bytes unread would reset the connection and
     * the client would see a reset instead of the reason. */
    t->flags |= TLS_LINGER_ON_CLOSE;
    tlsHandshakeEnd(t, 0);
}

static void tlsEventHandler(eventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)fd;
    tlsConn *t = data;
    if (t->flags & TLS_LINGERING) {
        tlsLingerDrain(t);
        return;
    }
    if (t->flags & TLS_HANDSHAKING) {
        tlsHandshakeStep(t);
        return;
    }
    int f = t->flags;
    int call_read = (f & TLS_READ_WANTS_WRITE) ? (mask & EV_WRITABLE) : (mask & EV_READABLE);
    int call_write = (f & TLS_WRITE_WANTS_READ) ? (mask & EV_READABLE) : (mask & EV_WRITABLE);
    /* Handlers may close the connection; the client layer frees it only
     * after the event, so t stays valid through both calls. */
    if (f & TLS_BARRIER) {
        if (call_write && t->c.write_handler) t->c.write_handler(&t->c);
        if (call_read && t->c.read_handler) t->c.read_handler(&t->c);
    } else {
        if (call_read && t->c.read_handler) t->c.read_handler(&t->c);
        if (call_write && t->c.write_handler) t->c.write_handler(&t->c);
    }
}

/* A failed SSL_read/SSL_write (r <= 0): -1 with errno EAGAIN when it is
 * only waiting, 0 at a clean end of stream (reads), else -1 with the
 * connection in the error state. */
static ssize_t tlsIoFailed(tlsConn *t, int r, int writing) {
    int e = SSL_get_error(t->ssl, r);
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: {
        /* This call's flag says whether it now waits for the opposite of
         * its own direction; a stale one would make it (and tlsSyncEvents)
         * wait for the wrong event. */
        int flag = writing ? TLS_WRITE_WANTS_READ : TLS_READ_WANTS_WRITE;
        int inverted = e == (writing ? SSL_ERROR_WANT_READ : SSL_ERROR_WANT_WRITE);
        if (!!(t->flags & flag) != inverted) {
            t->flags ^= flag;
            tlsUpdateEvents(t);
        }
        errno = EAGAIN;
        return -1;
    }
    case SSL_ERROR_ZERO_RETURN:
        t->c.state = CONN_STATE_CLOSED;
        if (!writing) return 0;
        errno = EPIPE;
        return -1;
    default: {
        int syserr = e == SSL_ERROR_SYSCALL ? errno : 0;
        char reason[256];
        if (e == SSL_ERROR_SYSCALL && !syserr && !writing && !ERR_peek_error()) {
            t->c.state = CONN_STATE_CLOSED; /* EOF without close_notify */
            return 0;
        }
        serverLog(LL_VERBOSE, "TLS %s error: %s", writing ? "write" : "read",
                  tlsErrorReason(reason, sizeof(reason), e));
        t->c.state = CONN_STATE_ERROR;
        t->c.last_errno = syserr ? syserr : EIO;
        errno = t->c.last_errno;
        return -1;
    }
    }
}

/* With read-ahead (tls.c) one read(2) takes in whatever the socket holds,
 * possibly several records; SSL_read hands out one record at a time, so the
 * buffer is filled from the records already in memory before returning.
 * SSL_has_pending (decrypted or still raw bytes) decides, without touching
 * the socket: the only syscall is the first SSL_read's. */
static ssize_t tlsRead(connection *conn, void *buf, size_t len) {
    tlsConn *t = (tlsConn *)conn;
    if (len == 0) return 0;
    if (t->flags & TLS_READ_DEFERRED) {
        t->flags &= ~TLS_READ_DEFERRED;
        if (!t->deferred_errno) return 0;
        errno = t->deferred_errno;
        return -1;
    }
    if (len > INT32_MAX) len = INT32_MAX;
    int r = SSL_read(t->ssl, buf, (int)len);
    if (r <= 0) return tlsIoFailed(t, r, 0);
    if (t->flags & TLS_READ_WANTS_WRITE) {
        t->flags &= ~TLS_READ_WANTS_WRITE;
        tlsUpdateEvents(t);
    }
    size_t got = (size_t)r;
    while (got < len && SSL_has_pending(t->ssl)) {
        r = SSL_read(t->ssl, (char *)buf + got, (int)(len - got));
        if (r <= 0) {
            /* A wait only sets its want-flag. An end or an error is kept
             * for the next call, after the caller used these bytes; the
             * pending list makes sure that call comes. */
            ssize_t end = tlsIoFailed(t, r, 0);
            if (end == -1 && errno == EAGAIN) break;
            t->flags |= TLS_READ_DEFERRED;
            t->deferred_errno = end == 0 ? 0 : errno;
            if (!t->list) tlsListAdd(t, &pending);
            return (ssize_t)got;
        }
        got += (size_t)r;
    }
    /* A full buffer may have left bytes that epoll will never announce:
     * the pending list brings them back before the loop sleeps. */
    if (got == len && !t->list && SSL_has_pending(t->ssl)) tlsListAdd(t, &pending);
    return (ssize_t)got;
}

static ssize_t tlsWrite(connection *conn, const void *buf, size_t len) {
    tlsConn *t = (tlsConn *)conn;
    if (len == 0) return 0;
    int w = SSL_write(t->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);
    if (w <= 0) return tlsIoFailed(t, w, 1);
    if (t->flags & TLS_WRITE_WANTS_READ) {
        t->flags &= ~TLS_WRITE_WANTS_READ;
        tlsUpdateEvents(t);
    }
    return w;
}

/* OpenSSL has no writev. A big first buffer goes out alone; small ones are
 * copied together up to one record. A retry after WANT_WRITE must offer at
 * least the bytes of the failed call: the caller's output only grows at
 * its end, and the gathered length is min(total, one record), so it does. */
static ssize_t tlsWritev(connection *conn, const struct iovec *iov, int n) {
    static char gather[TLS_GATHER_BYTES];
    if (n == 1 || iov[0].iov_len >= TLS_GATHER_BYTES)
        return tlsWrite(conn, iov[0].iov_base, iov[0].iov_len);
    size_t used = 0;
    for (int k = 0; k < n && used < TLS_GATHER_BYTES; k++) {
        size_t take = iov[k].iov_len;
        if (take > TLS_GATHER_BYTES - used) take = TLS_GATHER_BYTES - used;
        memcpy(gather + used, iov[k].iov_base, take);
        used += take;
    }
    return tlsWrite(conn, gather, used);
}

static int tlsSetReadHandler(connection *conn, connCallback cb) {
    tlsConn *t = (tlsConn *)conn;
    if (cb == conn->read_handler) return C_OK;
    conn->read_handler = cb;
    tlsUpdateEvents(t);
    /* Bytes already decrypted are not announced by epoll. */
    if (cb && !t->list && !(t->flags & TLS_HANDSHAKING) && SSL_has_pending(t->ssl))
        tlsListAdd(t, &pending);
    return conn->state == CONN_STATE_ERROR ? C_ERR : C_OK;
}

static int tlsSetWriteHandler(connection *conn, connCallback cb, int barrier) {
    tlsConn *t = (tlsConn *)conn;
    if (cb == conn->write_handler) return C_OK;
    conn->write_handler = cb;
    if (barrier) t->flags |= TLS_BARRIER;
    else t->flags &= ~TLS_BARRIER;
    tlsUpdateEvents(t);
    return conn->state == CONN_STATE_ERROR ? C_ERR : C_OK;
}

static void tlsFree(tlsConn *t) {
    tlsListRemove(t);
    if (t->c.fd != -1) {
        /* Both events: an outbound connection still in its TCP connect is
         * registered by the socket type, not in t->mask. */
        elDelFile(server.el, t->c.fd, EV_READABLE | EV_WRITABLE);
        close(t->c.fd);
    }
    SSL_free(t->ssl);
    zfree(t->error);
    zfree(t);
}

/* Read and drop what the peer still sends, until it closes (it has read
 * the alert by then) or the linger time is up. */
static void tlsLingerDrain(tlsConn *t) {
    char buf[4096];
    for (int k = 0; k < 16; k++) {
        ssize_t n = read(t->c.fd, buf, sizeof(buf));
        if (n > 0) continue;
        if (n < 0 && errno == EAGAIN) return;
        break;
    }
    tlsFree(t);
}

static void tlsClose(connection *conn) {
    tlsConn *t = (tlsConn *)conn;
    if ((t->flags & TLS_LINGER_ON_CLOSE) && conn->fd != -1) {
        tlsListRemove(t);
        if (t->mask) elDelFile(server.el, conn->fd, t->mask);
        t->mask = 0;
        t->c.read_handler = t->c.write_handler = NULL;
        shutdown(conn->fd, SHUT_WR);
        t->flags = TLS_LINGERING;
        t->hs_start_ms = server.unixtime_ms;
        tlsListAdd(t, &handshaking);
        if (elAddFile(server.el, conn->fd, EV_READABLE, tlsEventHandler, t) == EV_ERR) {
            tlsFree(t);
            return;
        }
        t->mask = EV_READABLE;
        return;
    }
    /* close_notify, best effort: the socket is non-blocking and nobody
     * waits for the peer's answer. */
    if (conn->fd != -1 && !(t->flags & TLS_HANDSHAKING) && conn->state == CONN_STATE_CONNECTED) {
        if (SSL_shutdown(t->ssl) < 0) ERR_clear_error();
    }
    tlsFree(t);
}

static int tlsFormatPeer(connection *conn, char *buf, size_t len, int local) {
    /* The peer of a TLS connection is its TCP socket's. */
    return connTcpType.format_peer(conn, buf, len, local);
}

static int tlsAccept(connection *conn, connCallback cb) {
    tlsConn *t = (tlsConn *)conn;
    t->hs_done = cb;
    SSL_set_accept_state(t->ssl);
    /* The ClientHello is usually not there yet: wait for it rather than
     * spending an SSL call on EAGAIN. */
    t->hs_want = EV_READABLE;
    tlsUpdateEvents(t);
    return conn->state == CONN_STATE_ERROR ? C_ERR : C_OK;
}

/* ---- outbound ---- */

static connection *tlsCreate(void) {
    tlsConn *t = zcalloc(sizeof(*t));
    t->c.type = &connTlsType;
    t->c.fd = -1;
    return &t->c;
}

/* The TCP connect ended (conn.c called back): start the TLS handshake. */
static void tlsConnectTcpDone(connection *conn) {
    tlsConn *t = (tlsConn *)conn;
    if (conn->state == CONN_STATE_CONNECTED && !SSL_set_fd(t->ssl, conn->fd)) {
        char reason[256];
        tlsSetError(t, "Failed to set up the TLS connection: %s",
                    tlsErrorReason(reason, sizeof(reason), SSL_ERROR_SSL));
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = EIO;
    }
    if (conn->state != CONN_STATE_CONNECTED) {
        connCallback cb = t->hs_done;
        t->hs_done = NULL;
        cb(conn);
        return;
    }
    SSL_set_connect_state(t->ssl);
    conn->state = CONN_STATE_CONNECTING;
    t->flags |= TLS_HANDSHAKING;
    t->hs_start_ms = server.unixtime_ms;
    tlsListAdd(t, &handshaking);
    /* Our ClientHello goes out now; the callback may run from here. */
    tlsHandshakeStep(t);
}

static int tlsConnect(connection *conn, const char *host, int port, const char *src_addr,
                      connCallback cb) {
    tlsConn *t = (tlsConn *)conn;
    SSL_CTX *ctx = tlsClientCtx();
    t->ssl = ctx ? SSL_new(ctx) : NULL;
    if (!t->ssl) {
        char reason[256];
        if (ctx) tlsSetError(t, "Failed to create a TLS connection: %s",
                             tlsErrorReason(reason, sizeof(reason), SSL_ERROR_SSL));
        else tlsSetError(t, "TLS is not configured (tls-cert-file, tls-key-file, tls-ca-cert-file)");
        conn->state = CONN_STATE_ERROR;
        conn->last_errno = EINVAL;
        return C_ERR;
    }
    t->flags |= TLS_OUTBOUND;
    t->hs_done = cb;
    return connTcpType.connect(conn, host, port, src_addr, tlsConnectTcpDone);
}

/* What a blocking helper waits for after EAGAIN: the want-flags say when
 * OpenSSL needs the other direction. */
static int tlsSyncEvents(connection *conn, int writing) {
    tlsConn *t = (tlsConn *)conn;
    if (writing) return (t->flags & TLS_WRITE_WANTS_READ) ? POLLIN : POLLOUT;
    return (t->flags & TLS_READ_WANTS_WRITE) ? POLLOUT : POLLIN;
}

static const char *tlsLastError(connection *conn) { return ((tlsConn *)conn)->error; }

connType connTlsType = {
    .name = "tls",
    .read = tlsRead,
    .write = tlsWrite,
    .writev = tlsWritev,
    .set_read_handler = tlsSetReadHandler,
    .set_write_handler = tlsSetWriteHandler,
    .close = tlsClose,
    .format_peer = tlsFormatPeer,
    .connect = tlsConnect,
    .accept = tlsAccept,
    .create = tlsCreate,
    .sync_events = tlsSyncEvents,
    .last_error = tlsLastError,
};

connection *connCreateAcceptedTls(int fd) {
    SSL_CTX *ctx = tlsServerCtx();
    SSL *ssl = ctx ? SSL_new(ctx) : NULL;
    if (!ssl || !SSL_set_fd(ssl, fd)) {
        char reason[256];
        serverLog(LL_WARNING, "Failed to create a TLS connection: %s",
                  tlsErrorReason(reason, sizeof(reason), SSL_ERROR_SSL));
        if (ssl) SSL_free(ssl);
        return NULL;
    }
    tlsConn *t = zcalloc(sizeof(*t));
    t->c.type = &connTlsType;
    t->c.fd = fd;
    t->c.state = CONN_STATE_CONNECTED;
    t->ssl = ssl;
    t->flags = TLS_HANDSHAKING;
    t->hs_start_ms = server.unixtime_ms;
    tlsListAdd(t, &handshaking);
    return &t->c;
}

int tlsProcessPending(void) {
    if (!pending) return 0;
    /* Serve this pass's list; reads that fill the buffer again queue
     * themselves for the next pass, and a close unlinks from either. */
    serving = pending;
    pending = NULL;
    for (tlsConn *t = serving; t; t = t->next) t->list = &serving;
    while (serving) {
        tlsConn *t = serving;
        tlsListRemove(t);
        if (t->c.read_handler) t->c.read_handler(&t->c);
    }
    return pending != NULL;
}

void tlsHandshakeCron(void) {
    tlsConn *t = handshaking;
    while (t) {
        tlsConn *next = t->next;
        long long age = server.unixtime_ms - t->hs_start_ms;
        if ((t->flags & TLS_LINGERING) && age > TLS_LINGER_MS) {
            tlsFree(t);
        } else if (!(t->flags & TLS_LINGERING) && age > TLS_HANDSHAKE_TIMEOUT_MS) {
            char peer[128];
            connTcpType.format_peer(&t->c, peer, sizeof(peer), 0);
            if (t->flags & TLS_OUTBOUND)
                tlsSetError(t, "TLS handshake with %s timed out", peer);
            else
                serverLog(LL_WARNING, "Error accepting a client connection: TLS handshake timed out "
                                      "(addr=%s)",
                          peer);
            t->c.last_errno = ETIMEDOUT;
            tlsHandshakeEnd(t, 0); /* the callback closes it, next is untouched */
        }
        t = next;
    }
}
