/* args: parsing command arguments (args.c). Each ...OrReply helper replies
 * with the error and returns C_ERR when the argument does not fit. */
#ifndef CAIRN_ARGS_H
#define CAIRN_ARGS_H
#include "object.h"

typedef struct client client;

int getLongLongFromObjectOrReply(client *c, robj *o, long long *target, const char *msg);
int getLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
int getIntFromObjectOrReply(client *c, robj *o, int *target, const char *msg);
int getPositiveLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
int getRangeLongFromObjectOrReply(client *c, robj *o, long min, long max, long *target, const char *msg);
int getLongDoubleFromObjectOrReply(client *c, robj *o, long double *target, const char *msg);
int getDoubleFromObjectOrReply(client *c, robj *o, double *target, const char *msg);
int checkType(client *c, robj *o, int type);
int argEq(robj *arg, const char *name); /* case-insensitive option match */

#endif
