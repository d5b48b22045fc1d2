/* tls: the OpenSSL contexts built from the tls-* directives.
 *
 * cfg's tls-* fields go in; two SSL_CTX come out: the server context, which
 * every accepted TLS connection is created from, and the client context for
 * outbound connections (replication, later), which presents
 * tls-client-cert-file (or tls-cert-file when that is not set). A rebuild
 * replaces both only when both were built: a bad certificate leaves the old
 * contexts serving. Live connections keep a reference to the context they
 * were created from (SSL_new takes one), so replacing it drops nobody. */
#ifndef CAIRN_TLS_H
#define CAIRN_TLS_H
#include <stddef.h>

typedef struct ssl_ctx_st SSL_CTX;

/* OpenSSL's library set-up, once, before anything else here. */
void tlsInit(void);
/* Build both contexts from cfg and install them. 0 on success; -1 with a
 * reason in err (the old contexts, if any, stay installed). */
int tlsConfigure(char *err, size_t errlen);
/* The installed contexts, NULL until tlsConfigure has succeeded. */
SSL_CTX *tlsServerCtx(void);
SSL_CTX *tlsClientCtx(void);
/* Whether any part of the configuration uses TLS (tls-port, tls-replication,
 * tls-cluster): only then are certificates loaded, as in Redis. */
int tlsWanted(void);
/* The CONFIG SET hook of the tls-* directives other than tls-port. */
int tlsApplyConfig(const char **err);

#endif
