/* conn_tls: the TLS connection type (conn_tls.c), created from tls.c's
 * server context. */
#ifndef CAIRN_CONN_TLS_H
#define CAIRN_CONN_TLS_H
#include "conn.h"

extern connType connTlsType;

/* A TLS connection over an accepted socket, its handshake not started:
 * connAccept runs it. NULL (fd untouched) if no context is installed or
 * OpenSSL fails. */
connection *connCreateAcceptedTls(int fd);
/* Before the loop sleeps: serve connections with decrypted input epoll does
 * not know about. Returns 1 if some remain, so the loop must not block. */
int tlsProcessPending(void);
/* From the cron: abandon handshakes that take too long. */
void tlsHandshakeCron(void);

#endif
