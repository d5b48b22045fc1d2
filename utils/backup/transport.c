/* transport: the bytes of cairn-backup's replication link, over a plain
 * socket or TLS (OpenSSL, blocking, like redis-cli's --tls options).
 *
 *   backupTlsSetup(options) --> one client SSL_CTX for the process
 *   link.c: backupConnect --> backupTransportStart (SSL_connect, SNI,
 *           certificate checked against --cacert/--cacertdir or the
 *           system's CAs, unless --insecure) --> backupTransportRead/Write
 *           --> backupTransportClose
 *
 * Without --tls the same calls are read(2)/write(2) on the socket. Reads
 * and writes keep the socket's SO_RCVTIMEO/SO_SNDTIMEO bounds: a TLS read
 * that times out reports -1 with errno EAGAIN like a plain one. As in
 * redis-cli, the peer's certificate chain is verified but its host name is
 * not matched. The context lives until exit; each link frees its SSL. */
#include "backup.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <string.h>
#include <unistd.h>

static SSL_CTX *transport_ctx;
static const char *transport_sni;

static sds transportSslError(sds s) {
    unsigned long e = ERR_get_error();
    if (!e) return s;
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    return sdscatprintf(s, ": %s", buf);
}

int backupTlsSetup(const backupTlsOptions *t, sds *err) {
    if (!t->enabled) return 0;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        *err = transportSslError(sdsnew("cannot create a TLS context"));
        return -1;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_AUTO_RETRY);
    SSL_CTX_set_verify(ctx, t->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
    if (t->cacert || t->cacertdir) {
        if (!SSL_CTX_load_verify_locations(ctx, t->cacert, t->cacertdir)) {
            *err = transportSslError(sdscatprintf(sdsempty(), "cannot load the CA certificates %s",
                                                  t->cacert ? t->cacert : t->cacertdir));
            goto fail;
        }
    } else if (!SSL_CTX_set_default_verify_paths(ctx)) {
        *err = transportSslError(sdsnew("cannot load the system's CA certificates"));
        goto fail;
    }
    if (t->cert || t->key) {
        if (!t->cert || !t->key) {
            *err = sdsnew("--cert and --key go together");
            goto fail;
        }
        if (SSL_CTX_use_certificate_chain_file(ctx, t->cert) != 1) {
            *err = transportSslError(sdscatprintf(sdsempty(), "cannot load --cert %s", t->cert));
            goto fail;
        }
        if (SSL_CTX_use_PrivateKey_file(ctx, t->key, SSL_FILETYPE_PEM) != 1) {
            *err = transportSslError(sdscatprintf(sdsempty(), "cannot load --key %s", t->key));
            goto fail;
        }
    }
    transport_ctx = ctx;
    transport_sni = t->sni;
    return 0;
fail:
    SSL_CTX_free(ctx);
    return -1;
}

int backupTransportStart(backupLink *l, const char *host, int port, sds *err) {
    if (!transport_ctx) return 0;
    SSL *ssl = SSL_new(transport_ctx);
    if (!ssl || !SSL_set_fd(ssl, l->fd)) {
        *err = transportSslError(sdsnew("cannot start TLS"));
        SSL_free(ssl);
        return -1;
    }
    /* SNI carries a name, never an address literal (RFC 6066). */
    unsigned char addr[16];
    if (transport_sni)
        SSL_set_tlsext_host_name(ssl, transport_sni);
    else if (inet_pton(AF_INET, host, addr) != 1 && inet_pton(AF_INET6, host, addr) != 1)
        SSL_set_tlsext_host_name(ssl, host);
    ERR_clear_error();
    if (SSL_connect(ssl) != 1) {
        long v = SSL_get_verify_result(ssl);
        if (v != X509_V_OK)
            *err =
                sdscatprintf(sdsempty(),
                             "TLS handshake with %s:%d failed: the server's certificate is not "
                             "trusted (%s); give its CA with --cacert/--cacertdir, or --insecure",
                             host, port, X509_verify_cert_error_string(v));
        else
            *err = transportSslError(sdscatprintf(
                sdsempty(), "TLS handshake with %s:%d failed (is it a TLS port?)", host, port));
        SSL_free(ssl);
        return -1;
    }
    l->ssl = ssl;
    return 0;
}

/* An SSL_read/SSL_write result as read(2)/write(2) would give it. */
static ssize_t transportSslResult(SSL *ssl, int n) {
    if (n > 0) return n;
    int e = SSL_get_error(ssl, n);
    ERR_clear_error();
    switch (e) {
        case SSL_ERROR_ZERO_RETURN:
            return 0;
        case SSL_ERROR_WANT_READ:
        case SSL_ERROR_WANT_WRITE:
            errno = EAGAIN;
            return -1;
        case SSL_ERROR_SYSCALL:
            if (errno == 0) return 0; /* the peer closed without close_notify */
            return -1;
        default:
            errno = EPROTO;
            return -1;
    }
}

ssize_t backupTransportRead(backupLink *l, void *buf, size_t len) {
    if (!l->ssl) return read(l->fd, buf, len);
    errno = 0;
    return transportSslResult(l->ssl,
                              SSL_read(l->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len));
}

ssize_t backupTransportWrite(backupLink *l, const void *buf, size_t len) {
    if (!l->ssl) return write(l->fd, buf, len);
    errno = 0;
    return transportSslResult(l->ssl,
                              SSL_write(l->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len));
}

int backupTransportPending(backupLink *l) {
    return l->ssl ? SSL_pending(l->ssl) > 0 : 0;
}

void backupTransportClose(backupLink *l) {
    if (!l->ssl) return;
    SSL_free(l->ssl); /* no close_notify: the source is told by the closed socket */
    l->ssl = NULL;
}
