/* slowlog: the slow log and the MONITOR feed (slowlog.c), both fed by the
 * command core after a command runs. */
#ifndef CAIRN_SLOWLOG_H
#define CAIRN_SLOWLOG_H
#include "object.h"

typedef struct client client;
typedef struct serverDb serverDb;

void slowlogPush(client *c, robj **argv, int argc, long long duration);
void slowlogReset(void);
void monitorFeed(client *c, serverDb *db, robj **argv, int argc);

#endif
