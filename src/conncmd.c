/* conncmd: commands about the connection itself: PING, ECHO, QUIT, HELLO,
 * AUTH, RESET and CLIENT.
 *
 * They read and change the calling client's state (protocol, name,
 * authentication, reply mode) and, for CLIENT KILL/LIST, other clients'. */
#include "acl.h"
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "conn.h"
#include "db.h"
#include "multi.h"
#include "object.h"
#include "pubsub.h"
#include "reply.h"
#include "script.h"
#include "sds.h"
#include "server_state.h"
#include "tracking.h"
#include "util.h"
#include "blocked.h"

#include <stdlib.h>

void pingCommand(client *c) {
    if (c->argc > 2) {
        replyErrorArity(c);
        return;
    }
    if ((c->flags & CLIENT_PUBSUB) && c->resp == 2) {
        /* In subscriber mode replies are arrays, so PING answers like a message. */
        replyConst(c, "*2\r\n$4\r\npong\r\n");
        if (c->argc == 1) replyConst(c, "$0\r\n\r\n");
        else replyBulk(c, c->argv[1]);
        return;
    }
    if (c->argc == 1) replyConst(c, "+PONG\r\n");
    else replyBulk(c, c->argv[1]);
}

void echoCommand(client *c) { replyBulk(c, c->argv[1]); }

void quitCommand(client *c) {
    replyOk(c);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* Returns 1 if the credentials are accepted (the client now runs as that
 * user), otherwise replies the error; acl.c logs the failure. */
static int authCheckOrReply(client *c, robj *username, robj *password) {
    if (!aclAuthenticate(c, username, password)) {
        replyError(c, "WRONGPASS invalid username-password pair or user is disabled.");
        return 0;
    }
    return 1;
}

void authCommand(client *c) {
    if (c->argc > 3) {
        replyErrorSyntax(c);
        return;
    }
    robj *user, *pass;
    robj *def = NULL;
    for (int j = 1; j < c->argc; j++) clientRedactArg(c, j);
    if (c->argc == 2) {
        /* The one-argument form keeps its old error when there is no password. */
        if (aclDefaultUser()->flags & ACL_USER_NOPASS) {
            replyError(c, "ERR AUTH <password> called without any password configured for the "
                          "default user. Are you sure your configuration is correct?");
            return;
        }
        def = createStringObject("default", 7);
        user = def;
        pass = c->argv[1];
    } else {
        user = c->argv[1];
        pass = c->argv[2];
    }
    if (authCheckOrReply(c, user, pass)) replyOk(c);
    if (def) decrRefCount(def);
}

/* Client names are shown unquoted in CLIENT LIST, so they must be a single
 * printable token. */
static int clientNameIsValid(robj *name) {
    const char *p = name->ptr;
    size_t len = sdslen(name->ptr);
    for (size_t j = 0; j < len; j++)
        if (p[j] < '!' || p[j] > '~') return 0;
    return 1;
}

static int clientSetNameOrReply(client *c, robj *name) {
    if (!clientNameIsValid(name)) {
        replyError(c, "ERR Client names cannot contain spaces, newlines or special characters.");
        return C_ERR;
    }
    sdsfree(c->name);
    c->name = sdslen(name->ptr) ? sdsdup(name->ptr) : NULL;
    return C_OK;
}

void helloCommand(client *c) {
    long long ver = 0;
    int next = 1;
    robj *user = NULL, *pass = NULL, *name = NULL;
    if (c->argc >= 2) {
        if (getLongLongFromObjectOrReply(c, c->argv[next++], &ver,
                                         "Protocol version is not an integer or out of range") != C_OK)
            return;
        if (ver < 2 || ver > 3) {
            replyError(c, "NOPROTO unsupported protocol version");
            return;
        }
    }
    for (int j = next; j < c->argc; j++) {
        int more = (c->argc - 1) - j;
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "AUTH") && more >= 2) {
            clientRedactArg(c, j + 1);
            clientRedactArg(c, j + 2);
            user = c->argv[j + 1];
            pass = c->argv[j + 2];
            j += 2;
        } else if (!strcasecmp(opt, "SETNAME") && more) {
            name = c->argv[j + 1];
            if (!clientNameIsValid(name)) {
                replyError(c, "ERR Client names cannot contain spaces, newlines or special characters.");
                return;
            }
            j++;
        } else {
            replyErrorFormat(c, "ERR Syntax error in HELLO option '%s'", opt);
            return;
        }
    }
    if (user && pass && !authCheckOrReply(c, user, pass)) return;
    if (!(c->flags & CLIENT_AUTHENTICATED)) {
        replyError(c, "NOAUTH HELLO must be called with the client already authenticated, "
                      "otherwise the HELLO AUTH <user> <pass> option can be used to "
                      "authenticate the client and select the RESP protocol version at the same time");
        return;
    }
    if (name) clientSetNameOrReply(c, name);
    if (ver) c->resp = (int)ver;
    replyMapLen(c, 7);
    replyConst(c, "$6\r\nserver\r\n$5\r\nredis\r\n");
    replyConst(c, "$7\r\nversion\r\n");
    replyBulkBuf(c, CAIRN_VERSION, sizeof(CAIRN_VERSION) - 1);
    replyConst(c, "$5\r\nproto\r\n");
    replyLongLong(c, c->resp);
    replyConst(c, "$2\r\nid\r\n");
    replyLongLong(c, (long long)c->id);
    replyConst(c, "$4\r\nmode\r\n$10\r\nstandalone\r\n");
    replyConst(c, "$4\r\nrole\r\n$6\r\nmaster\r\n");
    replyConst(c, "$7\r\nmodules\r\n");
    replyArrayLen(c, 0);
}

void resetCommand(client *c) {
    c->resp = 2;
    c->db = &server.db[0];
    sdsfree(c->name);
    c->name = NULL;
    c->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_REPLY_SKIP_NEXT | CLIENT_NO_EVICT);
    if (c->flags & CLIENT_MONITOR) {
        c->flags &= ~CLIENT_MONITOR;
        client **pp = &server.monitors;
        while (*pp && *pp != c) pp = &(*pp)->monitor_next;
        if (*pp) *pp = c->monitor_next;
    }
    pubsubUnsubscribeAllClient(c, 0);
    multiDiscard(c);
    trackingDisable(c);
    c->user = aclDefaultUser();
    if (aclClientStartsAuthenticated()) c->flags |= CLIENT_AUTHENTICATED;
    else c->flags &= ~CLIENT_AUTHENTICATED;
    replyConst(c, "+RESET\r\n");
}

static int clientTypeByName(const char *name) {
    if (!strcasecmp(name, "normal")) return CLIENT_TYPE_NORMAL;
    if (!strcasecmp(name, "slave") || !strcasecmp(name, "replica")) return CLIENT_TYPE_REPLICA;
    if (!strcasecmp(name, "pubsub")) return CLIENT_TYPE_PUBSUB;
    if (!strcasecmp(name, "master")) return CLIENT_TYPE_MASTER;
    return -1;
}

static void clientKill(client *c) {
    /* Old form: CLIENT KILL addr:port -> OK or error. */
    if (c->argc == 3) {
        for (client *t = server.clients; t; t = t->next) {
            if (strcmp(t->peer, c->argv[2]->ptr) == 0) {
                if (t == c) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
                else clientFreeAsyncShut(t);
                replyOk(c);
                return;
            }
        }
        replyError(c, "ERR No such client");
        return;
    }
    uint64_t id = 0;
    const char *addr = NULL, *laddr = NULL;
    aclUser *user = NULL;
    int type = -1, skipme = 1;
    for (int i = 2; i < c->argc; i += 2) {
        if (i + 1 >= c->argc) {
            replyErrorSyntax(c);
            return;
        }
        const char *opt = c->argv[i]->ptr;
        const char *val = c->argv[i + 1]->ptr;
        if (!strcasecmp(opt, "id")) {
            long long tmp;
            if (getLongLongFromObject(c->argv[i + 1], &tmp) != C_OK || tmp <= 0) {
                replyError(c, "ERR client-id should be greater than 0");
                return;
            }
            id = (uint64_t)tmp;
        } else if (!strcasecmp(opt, "type")) {
            type = clientTypeByName(val);
            if (type == -1) {
                replyErrorFormat(c, "ERR Unknown client type '%s'", val);
                return;
            }
        } else if (!strcasecmp(opt, "addr")) {
            addr = val;
        } else if (!strcasecmp(opt, "laddr")) {
            laddr = val;
        } else if (!strcasecmp(opt, "user")) {
            user = aclLookupUser(val, sdslen(c->argv[i + 1]->ptr));
            if (!user) {
                replyErrorFormat(c, "ERR No such user '%s'", val);
                return;
            }
        } else if (!strcasecmp(opt, "skipme")) {
            if (!strcasecmp(val, "yes")) skipme = 1;
            else if (!strcasecmp(val, "no")) skipme = 0;
            else {
                replyErrorSyntax(c);
                return;
            }
        } else {
            replyErrorSyntax(c);
            return;
        }
    }
    long long killed = 0;
    for (client *t = server.clients; t; t = t->next) {
        if (id && t->id != id) continue;
        if (addr && strcmp(t->peer, addr) != 0) continue;
        if (laddr) {
            char la[NET_ADDR_STR_LEN];
            connFormatPeer(t->conn, la, sizeof(la), 1);
            if (strcmp(la, laddr) != 0) continue;
        }
        if (type != -1 && clientType(t) != type) continue;
        if (user && t->user != user) continue;
        if (t == c && skipme) continue;
        if (t == c) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else clientFreeAsyncShut(t);
        killed++;
    }
    replyLongLong(c, killed);
}

void clientCommand(client *c) {
    static const char *help[] = {
        "CACHING (YES|NO)",
        "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR",
        "    Return the client ID we are redirecting to when tracking is enabled.",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "UNPAUSE",
        "    Stop the current client pause, resuming traffic.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "TRACKINGINFO",
        "    Report tracking status for the current connection.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction.",
        NULL};
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        replyHelp(c, help);
    } else if (!strcasecmp(sub, "id")) {
        replyLongLong(c, (long long)c->id);
    } else if (!strcasecmp(sub, "setname")) {
        if (clientSetNameOrReply(c, c->argv[2]) == C_OK) replyOk(c);
    } else if (!strcasecmp(sub, "getname")) {
        if (c->name) replyBulkBuf(c, c->name, sdslen(c->name));
        else replyNull(c);
    } else if (!strcasecmp(sub, "info")) {
        sds s = clientInfoString(sdsempty(), c);
        s = sdscatlen(s, "\n", 1);
        replyVerbatim(c, s, sdslen(s), "txt");
        sdsfree(s);
    } else if (!strcasecmp(sub, "list")) {
        int type = -1;
        sds s = NULL;
        if (c->argc == 4 && argEq(c->argv[2], "type")) {
            type = clientTypeByName(c->argv[3]->ptr);
            if (type == -1) {
                replyErrorFormat(c, "ERR Unknown client type '%s'", (char *)c->argv[3]->ptr);
                return;
            }
            s = clientListString(type);
        } else if (c->argc > 3 && argEq(c->argv[2], "id")) {
            s = sdsempty();
            for (int j = 3; j < c->argc; j++) {
                long long id;
                if (getLongLongFromObject(c->argv[j], &id) != C_OK || id <= 0) {
                    sdsfree(s);
                    replyError(c, "ERR Invalid client ID");
                    return;
                }
                client *t = clientLookupById((uint64_t)id);
                if (t) {
                    s = clientInfoString(s, t);
                    s = sdscatlen(s, "\n", 1);
                }
            }
        } else if (c->argc != 2) {
            replyErrorSyntax(c);
            return;
        } else {
            s = clientListString(-1);
        }
        replyVerbatim(c, s, sdslen(s), "txt");
        sdsfree(s);
    } else if (!strcasecmp(sub, "kill")) {
        clientKill(c);
    } else if (!strcasecmp(sub, "pause") && c->argc >= 3) {
        pauseClientCommand(c);
    } else if (!strcasecmp(sub, "unpause") && c->argc == 2) {
        unpauseClients();
        replyOk(c);
    } else if (!strcasecmp(sub, "unblock") && (c->argc == 3 || c->argc == 4)) {
        long long id;
        int with_error = 0;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &id, NULL) != C_OK) return;
        if (c->argc == 4) {
            if (argEq(c->argv[3], "error")) with_error = 1;
            else if (!argEq(c->argv[3], "timeout")) {
                replyError(c, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
                return;
            }
        }
        /* An error ends the blocked command as a failed call (commandstats). */
        client *target = clientLookupById((unsigned long long)id);
        cairnCommand *blocked_cmd =
            target && (target->flags & CLIENT_BLOCKED) ? target->cmd : NULL;
        int done = unblockClientById((unsigned long long)id, with_error);
        if (done && with_error && blocked_cmd) blocked_cmd->failed_calls++;
        replyLongLong(c, done);
    } else if (!strcasecmp(sub, "no-evict")) {
        if (argEq(c->argv[2], "on")) {
            c->flags |= CLIENT_NO_EVICT;
            replyOk(c);
        } else if (argEq(c->argv[2], "off")) {
            c->flags &= ~CLIENT_NO_EVICT;
            replyOk(c);
        } else {
            replyErrorSyntax(c);
        }
    } else if (!strcasecmp(sub, "reply")) {
        if (argEq(c->argv[2], "on")) {
            c->flags &= ~(CLIENT_REPLY_SKIP | CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP_NEXT);
            replyOk(c);
        } else if (argEq(c->argv[2], "off")) {
            c->flags |= CLIENT_REPLY_OFF;
        } else if (argEq(c->argv[2], "skip")) {
            /* Like OFF, this command itself says nothing. */
            if (!(c->flags & CLIENT_REPLY_OFF)) c->flags |= CLIENT_REPLY_SKIP_NEXT;
        } else {
            replyErrorSyntax(c);
        }
    } else {
        replyErrorSubcommand(c);
    }
}

/* ---- CLIENT PAUSE / UNPAUSE ----
 * While a pause is in force, commands it covers (all, or those that could
 * write) are held: commandProcess marks the client CLIENT_POSTPONED and
 * stops reading its input; when the pause ends each held client runs its
 * command and continues. Expiry does not delete keys during a pause, so the
 * dataset (and the propagation stream) stays still. */

int clientsArePaused(void) {
    return server.pause_type != PAUSE_NONE || server.pause_failover || server.pause_shutdown;
}

int commandIsPaused(client *c) {
    cairnCommand *cmd = c->cmd;
    /* Ending or inspecting a pause must stay possible. */
    if (cmd->proc == clientCommand || cmd->proc == quitCommand || cmd->proc == resetCommand)
        return 0;
    if (server.pause_type == PAUSE_ALL) return 1;
    if (scriptCommandMayWrite(cmd, c->argv, c->argc)) return 1;
    if (cmd->proc == execCommand && multiQueueMayWrite(c)) return 1;
    return 0;
}

/* Run the held commands again: those still covered by a pause in force
 * (the other of CLIENT PAUSE and FAILOVER) are held again. */
static void pauseResumeHeld(void) {
    for (client *c = server.clients; c; c = c->next) {
        if (!(c->flags & CLIENT_POSTPONED)) continue;
        c->flags &= ~CLIENT_POSTPONED;
        c->last_interaction = server.unixtime_ms; /* as blockedServed */
        /* The primary's held command is still in its buffer (see
         * clientProcessInput): it is parsed and applied from there. */
        if (!(c->flags & CLIENT_MASTER)) {
            commandProcess(c);
            if (c->flags & (CLIENT_BLOCKED | CLIENT_POSTPONED)) continue;
            clientReset(c);
        }
        /* More input may be waiting: process it before the loop sleeps. */
        if (!(c->flags & CLIENT_UNBLOCKED)) {
            c->flags |= CLIENT_UNBLOCKED;
            c->unblocked_next = server.unblocked;
            server.unblocked = c;
        }
    }
}

void unpauseClients(void) {
    server.pause_type = PAUSE_NONE;
    server.pause_end = 0;
    pauseResumeHeld();
}

void pauseWritesForFailover(int on) {
    server.pause_failover = on;
    if (!on) pauseResumeHeld();
}

void pauseWritesForShutdown(int on) {
    server.pause_shutdown = on;
    if (!on) pauseResumeHeld();
}

void pauseCheckTimeout(void) {
    if (server.pause_type && mstime() >= server.pause_end) unpauseClients();
}

void pauseClientCommand(client *c) {
    long long timeout;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &timeout,
                                     "timeout is not an integer or out of range") != C_OK)
        return;
    if (timeout < 0) {
        replyError(c, "ERR timeout is negative");
        return;
    }
    int type = PAUSE_ALL;
    if (c->argc == 4) {
        if (argEq(c->argv[3], "write")) type = PAUSE_WRITE;
        else if (!argEq(c->argv[3], "all")) {
            replyError(c, "ERR CLIENT PAUSE mode must be WRITE or ALL");
            return;
        } else {
            type = PAUSE_ALL;
        }
    } else if (c->argc > 4) {
        replyErrorSubcommand(c);
        return;
    }
    long long end = mstime() + timeout;
    /* A second pause never shortens or weakens the one in force. */
    if (type > server.pause_type) server.pause_type = type;
    if (end > server.pause_end) server.pause_end = end;
    replyOk(c);
}
