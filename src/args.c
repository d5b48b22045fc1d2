/* args: parsing command arguments into numbers, with the exact error
 * replies Redis gives. Each ...OrReply helper has already answered the
 * client when it returns C_ERR, so callers just return. */
#include "args.h"
#include "object.h"
#include "reply.h"
#include "sds.h"
#include "util.h"

#include <limits.h>

int argEq(robj *arg, const char *name) {
    return sdsEncodedObject(arg) && strcaseeqlen(arg->ptr, sdslen(arg->ptr), name);
}

int getLongLongFromObjectOrReply(client *c, robj *o, long long *target, const char *msg) {
    long long value;
    if (getLongLongFromObject(o, &value) != C_OK) {
        if (msg) replyErrorFormat(c, "ERR %s", msg);
        else replyErrorNotInt(c);
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

int getRangeLongFromObjectOrReply(client *c, robj *o, long min, long max, long *target,
                                  const char *msg) {
    long long value;
    if (getLongLongFromObject(o, &value) != C_OK) {
        if (msg) replyErrorFormat(c, "ERR %s", msg);
        else replyErrorNotInt(c);
        return C_ERR;
    }
    if (value < min || value > max) {
        /* Redis' wording, missing verb included. */
        if (msg) replyErrorFormat(c, "ERR %s", msg);
        else replyErrorFormat(c, "ERR value is out of range, value must between %ld and %ld", min, max);
        return C_ERR;
    }
    *target = (long)value;
    return C_OK;
}

int getLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg) {
    long long value;
    if (getLongLongFromObject(o, &value) != C_OK || value < LONG_MIN || value > LONG_MAX) {
        if (msg) replyErrorFormat(c, "ERR %s", msg);
        else replyErrorNotInt(c);
        return C_ERR;
    }
    *target = (long)value;
    return C_OK;
}

int getIntFromObjectOrReply(client *c, robj *o, int *target, const char *msg) {
    long long value;
    if (getLongLongFromObject(o, &value) != C_OK || value < INT_MIN || value > INT_MAX) {
        if (msg) replyErrorFormat(c, "ERR %s", msg);
        else replyErrorNotInt(c);
        return C_ERR;
    }
    *target = (int)value;
    return C_OK;
}

int getPositiveLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg) {
    if (msg) return getRangeLongFromObjectOrReply(c, o, 0, LONG_MAX, target, msg);
    return getRangeLongFromObjectOrReply(c, o, 0, LONG_MAX, target, "value is out of range, must be positive");
}

int getLongDoubleFromObjectOrReply(client *c, robj *o, long double *target, const char *msg) {
    if (getLongDoubleFromObject(o, target) != C_OK) {
        if (msg) replyErrorFormat(c, "ERR %s", msg);
        else replyError(c, "ERR value is not a valid float");
        return C_ERR;
    }
    return C_OK;
}

int getDoubleFromObjectOrReply(client *c, robj *o, double *target, const char *msg) {
    if (getDoubleFromObject(o, target) != C_OK) {
        if (msg) replyErrorFormat(c, "ERR %s", msg);
        else replyError(c, "ERR value is not a valid float");
        return C_ERR;
    }
    return C_OK;
}

int checkType(client *c, robj *o, int type) {
    if (o && o->type != type) {
        replyErrorWrongType(c);
        return 1;
    }
    return 0;
}
