/* tls: builds the server and client SSL_CTX from cfg's tls-* fields and
 * swaps them in (see tls.h). Certificates and keys are read from disk on
 * every build, so re-setting a path picks up a renewed file.
 *
 * OpenSSL errors are taken off the thread's error queue as soon as they are
 * reported here: the connection code relies on the queue being empty before
 * each SSL_read/SSL_write, so it never has to clear it on the hot path. */
#include "tls.h"
#include "config.h"
#include "log.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static SSL_CTX *server_ctx, *client_ctx;

SSL_CTX *tlsServerCtx(void) { return server_ctx; }
SSL_CTX *tlsClientCtx(void) { return client_ctx; }

int tlsWanted(void) { return cfg.tls_port || cfg.tls_replication || cfg.tls_cluster; }

void tlsInit(void) {
    OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL);
}

/* err = "<what> <path>: <the earliest OpenSSL error>", the root cause
 * (e.g. "No such file or directory") rather than the layers above it. */
static int tlsFail(char *err, size_t errlen, const char *what, const char *path) {
    unsigned long e = ERR_get_error();
    char ebuf[256] = "";
    if (e) ERR_error_string_n(e, ebuf, sizeof(ebuf));
    snprintf(err, errlen, "%s%s%s%s%s", what, path ? " " : "", path ? path : "", e ? ": " : "",
             ebuf);
    ERR_clear_error();
    return -1;
}

/* tls-protocols: the versions to allow, as SSL_OP_NO_* options to set for
 * the others. Unset means TLSv1.2 and TLSv1.3, Redis' default. */
static int tlsProtocolOptions(long *opts, char *err, size_t errlen) {
    static const struct {
        const char *name;
        long op;
    } versions[] = {{"TLSv1", SSL_OP_NO_TLSv1},
                    {"TLSv1.1", SSL_OP_NO_TLSv1_1},
                    {"TLSv1.2", SSL_OP_NO_TLSv1_2},
                    {"TLSv1.3", SSL_OP_NO_TLSv1_3}};
    const char *spec = cfg.tls_protocols ? cfg.tls_protocols : "TLSv1.2 TLSv1.3";
    long allowed = 0, all = 0;
    char word[32];
    for (size_t k = 0; k < sizeof(versions) / sizeof(versions[0]); k++) all |= versions[k].op;
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, " \t");
        if (n) {
            size_t k;
            snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) ? n : sizeof(word) - 1), p);
            for (k = 0; k < sizeof(versions) / sizeof(versions[0]); k++)
                if (n < sizeof(word) && !strcasecmp(word, versions[k].name)) break;
            if (k == sizeof(versions) / sizeof(versions[0])) {
                snprintf(err, errlen, "Invalid tls-protocols specified. Use a combination of "
                                      "'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
                return -1;
            }
            allowed |= versions[k].op;
        }
        p += n;
        p += strspn(p, " \t");
    }
    if (!allowed) {
        snprintf(err, errlen, "tls-protocols names no protocol");
        return -1;
    }
    *opts = all & ~allowed;
    return 0;
}

/* The key's passphrase (tls-key-file-pass ...) handed to OpenSSL. */
static int tlsPassphrase(char *buf, int size, int rwflag, void *u) {
    (void)rwflag;
    const char *pass = u;
    int n = (int)strlen(pass);
    if (n > size) n = size;
    memcpy(buf, pass, (size_t)n);
    return n;
}

/* One context: the server's when !client, else the outbound one. NULL with
 * err set on failure. */
static SSL_CTX *tlsBuild(int client, char *err, size_t errlen) {
    int own_cert = client && cfg.tls_client_cert_file;
    const char *cert = own_cert ? cfg.tls_client_cert_file : cfg.tls_cert_file;
    const char *key = own_cert ? cfg.tls_client_key_file : cfg.tls_key_file;
    const char *pass = own_cert ? cfg.tls_client_key_file_pass : cfg.tls_key_file_pass;
    long noproto;
    if (!cert) {
        snprintf(err, errlen, own_cert ? "No tls-client-cert-file configured!"
                                       : "No tls-cert-file configured!");
        return NULL;
    }
    if (!key) {
        snprintf(err, errlen, own_cert ? "No tls-client-key-file configured!"
                                       : "No tls-key-file configured!");
        return NULL;
    }
    if (!cfg.tls_ca_cert_file && !cfg.tls_ca_cert_dir) {
        snprintf(err, errlen, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified");
        return NULL;
    }
    if (tlsProtocolOptions(&noproto, err, errlen) == -1) return NULL;

    SSL_CTX *ctx = SSL_CTX_new(client ? TLS_client_method() : TLS_server_method());
    if (!ctx) {
        tlsFail(err, errlen, "Failed to create an SSL context", NULL);
        return NULL;
    }
    long opts = SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION | noproto;
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    /* A peer that closes the socket without close_notify is a plain EOF, not
     * an error worth a warning: most clients do exactly that. */
    opts |= SSL_OP_IGNORE_UNEXPECTED_EOF;
#endif
#ifdef SSL_OP_NO_RENEGOTIATION
    opts |= SSL_OP_NO_RENEGOTIATION;
#endif
#ifdef SSL_OP_NO_CLIENT_RENEGOTIATION
    opts |= SSL_OP_NO_CLIENT_RENEGOTIATION;
#endif
    if (!client && cfg.tls_prefer_server_ciphers) opts |= SSL_OP_CIPHER_SERVER_PREFERENCE;
    if (!client && !cfg.tls_session_caching) opts |= SSL_OP_NO_TICKET;
    SSL_CTX_set_options(ctx, opts);
    /* The client layer retries a write from wherever its output now starts,
     * possibly with more bytes after them. */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* One read(2) of up to a full record buffer instead of two per record
     * (header, then body): halves the read syscalls of a request. conn_tls
     * then asks SSL_has_pending, not SSL_pending, for bytes held inside. */
    SSL_CTX_set_read_ahead(ctx, 1);

    if (!client) {
        if (cfg.tls_session_caching) {
            SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
            SSL_CTX_sess_set_cache_size(ctx, cfg.tls_session_cache_size);
            SSL_CTX_set_timeout(ctx, cfg.tls_session_cache_timeout);
            /* Resumption with client certificates needs a context id. */
            SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"cairn", 5);
            /* TLS 1.3 tickets: one per connection, not OpenSSL's two. Each
             * costs a serialize/parse/serialize of the session, peer
             * certificate included (~1.3M instructions in 3.0, a sixth of
             * a whole handshake), and one is all a client resumes with. */
            SSL_CTX_set_num_tickets(ctx, 1);
        } else {
            SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        }
        int mode = SSL_VERIFY_NONE;
        if (cfg.tls_auth_clients == TLS_CLIENT_AUTH_YES)
            mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
        else if (cfg.tls_auth_clients == TLS_CLIENT_AUTH_OPTIONAL)
            mode = SSL_VERIFY_PEER;
        SSL_CTX_set_verify(ctx, mode, NULL);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    }

    if (pass) {
        SSL_CTX_set_default_passwd_cb(ctx, tlsPassphrase);
        SSL_CTX_set_default_passwd_cb_userdata(ctx, (void *)pass);
    }
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) <= 0) {
        tlsFail(err, errlen, "Failed to load certificate", cert);
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) <= 0) {
        tlsFail(err, errlen, "Failed to load private key", key);
        goto fail;
    }
    if (SSL_CTX_check_private_key(ctx) <= 0) {
        tlsFail(err, errlen, "The private key does not match the certificate", key);
        goto fail;
    }
    /* The passphrase is only needed while the key loads; the callback must
     * not outlive the cfg string it points to. */
    SSL_CTX_set_default_passwd_cb(ctx, NULL);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
    if (SSL_CTX_load_verify_locations(ctx, cfg.tls_ca_cert_file, cfg.tls_ca_cert_dir) <= 0) {
        tlsFail(err, errlen, "Failed to configure CA certificate(s) file/directory",
                cfg.tls_ca_cert_file ? cfg.tls_ca_cert_file : cfg.tls_ca_cert_dir);
        goto fail;
    }
    if (cfg.tls_ciphers && !SSL_CTX_set_cipher_list(ctx, cfg.tls_ciphers)) {
        tlsFail(err, errlen, "Failed to configure ciphers", cfg.tls_ciphers);
        goto fail;
    }
    if (cfg.tls_ciphersuites && !SSL_CTX_set_ciphersuites(ctx, cfg.tls_ciphersuites)) {
        tlsFail(err, errlen, "Failed to configure ciphersuites", cfg.tls_ciphersuites);
        goto fail;
    }
    if (!client && cfg.tls_dh_params_file) {
        BIO *bio = BIO_new_file(cfg.tls_dh_params_file, "r");
        EVP_PKEY *dh = bio ? PEM_read_bio_Parameters(bio, NULL) : NULL;
        if (bio) BIO_free(bio);
        if (!dh || !SSL_CTX_set0_tmp_dh_pkey(ctx, dh)) {
            if (dh) EVP_PKEY_free(dh);
            tlsFail(err, errlen, "Failed to load DH parameters", cfg.tls_dh_params_file);
            goto fail;
        }
    } else if (!client) {
        SSL_CTX_set_dh_auto(ctx, 1);
    }
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

int tlsConfigure(char *err, size_t errlen) {
    SSL_CTX *s = tlsBuild(0, err, errlen);
    if (!s) return -1;
    SSL_CTX *c = tlsBuild(1, err, errlen);
    if (!c) {
        SSL_CTX_free(s);
        return -1;
    }
    /* Connections made from the old contexts hold their own references. */
    if (server_ctx) SSL_CTX_free(server_ctx);
    if (client_ctx) SSL_CTX_free(client_ctx);
    server_ctx = s;
    client_ctx = c;
    return 0;
}

int tlsApplyConfig(const char **err) {
    static char reason[512];
    if (!tlsWanted()) return 1;
    if (tlsConfigure(reason, sizeof(reason)) == 0) return 1;
    /* Redis' reply; the log says what exactly failed. */
    serverLog(LL_WARNING, "Failed to update the TLS configuration: %s", reason);
    *err = "Unable to update TLS configuration. Check server logs.";
    return 0;
}
