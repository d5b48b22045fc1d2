/* commands: the single command table and the path every command takes,
 * from argv to reply: lookup, arity and auth checks (commandProcess), then
 * execution, statistics, the slow log, MONITOR and propagation (commandCall).
 *
 * Adding a command is one row here plus one function. Rows carry the name,
 * arity (negative: at least), flags, the classic key positions (first, last,
 * step; last < 0 counts from the end), the ACL categories COMMAND INFO shows,
 * and the text COMMAND DOCS returns. */
#include "server.h"
#include "blocked.h"
#include "t_bits.h"
#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "t_zset.h"
#include "sort.h"

#include <stdio.h>

#define W CMD_WRITE
#define R CMD_READONLY
#define M CMD_DENYOOM
#define F CMD_FAST
#define A CMD_ADMIN
#define L CMD_LOADING
#define S CMD_STALE
#define NS CMD_NOSCRIPT
#define NA CMD_NO_AUTH
#define SE CMD_SENTINEL
#define AB CMD_ALLOW_BUSY
#define P CMD_PROTECTED

#define K ACL_CAT_KEYSPACE
#define STR ACL_CAT_STRING
#define CN ACL_CAT_CONNECTION

/* A row: name, proc, arity, flags, extra acl categories, first, last, step,
 * summary, since, group. */
#define CMD(name, proc, arity, flags, acl, fk, lk, ks, summary, since, group)                      \
    {name, proc, arity, flags, acl, fk, lk, ks, summary, since, group, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0}
#define CMDS(name, arity, flags, acl, summary, since, group, subs)                                 \
    {name, NULL, arity, flags, acl, 0, 0, 0, summary, since, group, NULL, subs, NULL, NULL, 0, 0, 0, 0, 0}
#define END {NULL, NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0}

static cairnCommand objectSubcommands[] = {
    CMD("encoding", objectCommand, 3, R, K, 2, 2, 1, "Returns the internal encoding of a Redis object.", "2.2.3", "generic"),
    CMD("freq", objectCommand, 3, R, K, 2, 2, 1, "Returns the logarithmic access frequency counter of a Redis object.", "4.0.0", "generic"),
    CMD("idletime", objectCommand, 3, R, K, 2, 2, 1, "Returns the time since the last access to a Redis object.", "2.2.3", "generic"),
    CMD("refcount", objectCommand, 3, R, K, 2, 2, 1, "Returns the reference count of a value of a key.", "2.2.3", "generic"),
    CMD("help", objectCommand, 2, L | S, K, 0, 0, 0, "Returns helpful text about the different subcommands.", "6.2.0", "generic"),
    END};

static cairnCommand clientSubcommands[] = {
    CMD("id", clientCommand, 2, NS | L | S, CN, 0, 0, 0, "Returns the unique client ID of the connection.", "5.0.0", "connection"),
    CMD("setname", clientCommand, 3, NS | L | S, CN, 0, 0, 0, "Sets the connection name.", "2.6.9", "connection"),
    CMD("getname", clientCommand, 2, NS | L | S, CN, 0, 0, 0, "Returns the name of the connection.", "2.6.9", "connection"),
    CMD("list", clientCommand, -2, A | NS | L | S, CN, 0, 0, 0, "Lists open connections.", "2.4.0", "connection"),
    CMD("info", clientCommand, 2, NS | L | S, CN, 0, 0, 0, "Returns information about the connection.", "6.2.0", "connection"),
    CMD("kill", clientCommand, -3, A | NS | L | S, CN, 0, 0, 0, "Terminates open connections.", "2.4.0", "connection"),
    CMD("no-evict", clientCommand, 3, A | NS | L | S, CN, 0, 0, 0, "Sets the client eviction mode of the connection.", "7.0.0", "connection"),
    CMD("reply", clientCommand, 3, NS | L | S, CN, 0, 0, 0, "Instructs the server whether to reply to commands.", "3.2.0", "connection"),
    CMD("tracking", trackingCommand, -3, NS | L | S, CN, 0, 0, 0, "Controls server-assisted client-side caching for the connection.", "6.0.0", "connection"),
    CMD("caching", trackingCachingCommand, 3, NS | L | S, CN, 0, 0, 0, "Instructs the server whether to track the keys in the next request.", "6.0.0", "connection"),
    CMD("getredir", trackingGetRedirCommand, 2, NS | L | S, CN, 0, 0, 0, "Returns the client ID to which the connection's tracking notifications are redirected.", "6.0.0", "connection"),
    CMD("trackinginfo", trackingInfoCommand, 2, NS | L | S, CN, 0, 0, 0, "Returns information about server-assisted client-side caching for the connection.", "6.2.0", "connection"),
    CMD("pause", clientCommand, -3, A | NS | L | S, CN, 0, 0, 0, "Suspends commands processing.", "3.0.0", "connection"),
    CMD("unpause", clientCommand, 2, A | NS | L | S, CN, 0, 0, 0, "Resumes processing commands from paused clients.", "6.2.0", "connection"),
    CMD("unblock", clientCommand, -3, A | NS | L | S, CN, 0, 0, 0, "Unblocks a client blocked by a blocking command from a different connection.", "5.0.0", "connection"),
    CMD("help", clientCommand, 2, L | S, CN, 0, 0, 0, "Returns helpful text about the different subcommands.", "5.0.0", "connection"),
    END};

static cairnCommand commandSubcommands[] = {
    CMD("count", commandCommand, 2, L | S, CN, 0, 0, 0, "Returns a count of commands.", "2.8.13", "server"),
    CMD("info", commandCommand, -2, L | S, CN, 0, 0, 0, "Returns information about one, multiple or all commands.", "2.8.13", "server"),
    CMD("docs", commandCommand, -2, L | S, CN, 0, 0, 0, "Returns documentary information about one, multiple or all commands.", "7.0.0", "server"),
    CMD("list", commandCommand, -2, L | S, CN, 0, 0, 0, "Returns a list of command names.", "7.0.0", "server"),
    CMD("getkeys", commandCommand, -4, L | S, CN, 0, 0, 0, "Extracts the key names from an arbitrary command.", "2.8.13", "server"),
    CMD("getkeysandflags", commandCommand, -4, L | S, CN, 0, 0, 0, "Extracts the key names and access flags for an arbitrary command.", "7.0.0", "server"),
    CMD("help", commandCommand, 2, L | S, CN, 0, 0, 0, "Returns helpful text about the different subcommands.", "5.0.0", "server"),
    END};

static cairnCommand slowlogSubcommands[] = {
    CMD("get", slowlogCommand, -2, A | L | S, 0, 0, 0, 0, "Returns the slow log's entries.", "2.2.12", "server"),
    CMD("len", slowlogCommand, 2, A | L | S, 0, 0, 0, 0, "Returns the number of entries in the slow log.", "2.2.12", "server"),
    CMD("reset", slowlogCommand, 2, A | L | S, 0, 0, 0, 0, "Clears all entries from the slow log.", "2.2.12", "server"),
    CMD("help", slowlogCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands", "6.2.0", "server"),
    END};

static cairnCommand configSubcommands[] = {
    CMD("get", configCommand, -3, A | NS | L | S, 0, 0, 0, 0, "Returns the effective values of configuration parameters.", "2.0.0", "server"),
    CMD("set", configCommand, -4, A | NS | L | S, 0, 0, 0, 0, "Sets configuration parameters in-flight.", "2.0.0", "server"),
    CMD("resetstat", configCommand, 2, A | NS | L | S, 0, 0, 0, 0, "Resets the server's statistics.", "2.0.0", "server"),
    CMD("rewrite", configCommand, 2, A | NS | L | S, 0, 0, 0, 0, "Persists the effective configuration to file.", "2.8.0", "server"),
    CMD("help", configCommand, 2, L | S, 0, 0, 0, 0, "Returns helpful text about the different subcommands.", "5.0.0", "server"),
    END};

static cairnCommand memorySubcommands[] = {
    CMD("usage", memoryCommand, -3, R, K, 2, 2, 1, "Estimates the memory usage of a key.", "4.0.0", "server"),
    CMD("stats", memoryCommand, 2, 0, 0, 0, 0, 0, "Returns details about memory usage.", "4.0.0", "server"),
    CMD("doctor", memoryCommand, 2, 0, 0, 0, 0, 0, "Outputs a memory problems report.", "4.0.0", "server"),
    CMD("malloc-stats", memoryCommand, 2, 0, 0, 0, 0, 0, "Returns the allocator statistics.", "4.0.0", "server"),
    CMD("purge", memoryCommand, 2, 0, 0, 0, 0, 0, "Asks the allocator to release memory.", "4.0.0", "server"),
    CMD("help", memoryCommand, 2, L | S, 0, 0, 0, 0, "Returns helpful text about the different subcommands.", "4.0.0", "server"),
    END};

static cairnCommand pubsubSubcommands[] = {
    CMD("channels", pubsubCommand, -2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Returns the active channels.", "2.8.0", "pubsub"),
    CMD("numpat", pubsubCommand, 2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Returns a count of unique pattern subscriptions.", "2.8.0", "pubsub"),
    CMD("numsub", pubsubCommand, -2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Returns a count of subscribers to channels.", "2.8.0", "pubsub"),
    CMD("shardchannels", pubsubCommand, -2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Returns the active shard channels.", "7.0.0", "pubsub"),
    CMD("shardnumsub", pubsubCommand, -2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Returns the count of subscribers of shard channels.", "7.0.0", "pubsub"),
    CMD("help", pubsubCommand, 2, L | S, 0, 0, 0, 0, "Returns helpful text about the different subcommands.", "6.2.0", "pubsub"),
    END};

static cairnCommand commandTable[] = {
    /* strings */
    CMD("get", getCommand, 2, R | F, STR, 1, 1, 1, "Returns the string value of a key.", "1.0.0", "string"),
    CMD("set", setCommand, -3, W | M, STR, 1, 1, 1, "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", "1.0.0", "string"),
    CMD("setnx", setnxCommand, 3, W | M | F, STR, 1, 1, 1, "Set the string value of a key only when the key doesn't exist.", "1.0.0", "string"),
    CMD("setex", setexCommand, 4, W | M, STR, 1, 1, 1, "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.", "2.0.0", "string"),
    CMD("psetex", psetexCommand, 4, W | M, STR, 1, 1, 1, "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.", "2.6.0", "string"),
    CMD("getset", getsetCommand, 3, W | M | F, STR, 1, 1, 1, "Returns the previous string value of a key after setting it to a new value.", "1.0.0", "string"),
    CMD("getdel", getdelCommand, 2, W | F, STR, 1, 1, 1, "Returns the string value of a key after deleting the key.", "6.2.0", "string"),
    CMD("getex", getexCommand, -2, W | F, STR, 1, 1, 1, "Returns the string value of a key after setting its expiration time.", "6.2.0", "string"),
    CMD("mget", mgetCommand, -2, R | F, STR, 1, -1, 1, "Atomically returns the string values of one or more keys.", "1.0.0", "string"),
    CMD("mset", msetCommand, -3, W | M, STR, 1, -1, 2, "Atomically creates or modifies the string values of one or more keys.", "1.0.1", "string"),
    CMD("msetnx", msetnxCommand, -3, W | M, STR, 1, -1, 2, "Atomically modifies the string values of one or more keys only when all keys don't exist.", "1.0.1", "string"),
    CMD("incr", incrCommand, 2, W | M | F, STR, 1, 1, 1, "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", "1.0.0", "string"),
    CMD("decr", decrCommand, 2, W | M | F, STR, 1, 1, 1, "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", "1.0.0", "string"),
    CMD("incrby", incrbyCommand, 3, W | M | F, STR, 1, 1, 1, "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.", "1.0.0", "string"),
    CMD("decrby", decrbyCommand, 3, W | M | F, STR, 1, 1, 1, "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.", "1.0.0", "string"),
    CMD("incrbyfloat", incrbyfloatCommand, 3, W | M | F, STR, 1, 1, 1, "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.", "2.6.0", "string"),
    CMD("append", appendCommand, 3, W | M | F, STR, 1, 1, 1, "Appends a string to the value of a key. Creates the key if it doesn't exist.", "2.0.0", "string"),
    CMD("setrange", setrangeCommand, 4, W | M, STR, 1, 1, 1, "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", "2.2.0", "string"),
    CMD("getrange", getrangeCommand, 4, R, STR, 1, 1, 1, "Returns a substring of the string stored at a key.", "2.4.0", "string"),
    CMD("substr", getrangeCommand, 4, R, STR, 1, 1, 1, "Returns a substring from a string value.", "1.0.0", "string"),
    CMD("strlen", strlenCommand, 2, R | F, STR, 1, 1, 1, "Returns the length of a string value.", "2.2.0", "string"),
    CMD("lcs", lcsCommand, -3, R, STR, 1, 2, 1, "Finds the longest common substring.", "7.0.0", "string"),
    /* data types: rows live next to their commands' declarations */
    LIST_COMMANDS
    HASH_COMMANDS
    SET_COMMANDS
    ZSET_COMMANDS
    BITS_COMMANDS
    SORT_COMMANDS
    /* keyspace */
    CMD("del", delCommand, -2, W, K, 1, -1, 1, "Deletes one or more keys.", "1.0.0", "generic"),
    CMD("unlink", unlinkCommand, -2, W | F, K, 1, -1, 1, "Asynchronously deletes one or more keys.", "4.0.0", "generic"),
    CMD("exists", existsCommand, -2, R | F, K, 1, -1, 1, "Determines whether one or more keys exist.", "1.0.0", "generic"),
    CMD("type", typeCommand, 2, R | F, K, 1, 1, 1, "Determines the type of value stored at a key.", "1.0.0", "generic"),
    CMD("keys", keysCommand, 2, R, K | ACL_CAT_DANGEROUS, 0, 0, 0, "Returns all key names that match a pattern.", "1.0.0", "generic"),
    CMD("scan", scanCommand, -2, R, K, 0, 0, 0, "Iterates over the key names in the database.", "2.8.0", "generic"),
    CMD("randomkey", randomkeyCommand, 1, R, K, 0, 0, 0, "Returns a random key name from the database.", "1.0.0", "generic"),
    CMD("rename", renameCommand, 3, W, K, 1, 2, 1, "Renames a key and overwrites the destination.", "1.0.0", "generic"),
    CMD("renamenx", renamenxCommand, 3, W | F, K, 1, 2, 1, "Renames a key only when the target key name doesn't exist.", "1.0.0", "generic"),
    CMD("copy", copyCommand, -3, W | M, K, 1, 2, 1, "Copies the value of a key to a new key.", "6.2.0", "generic"),
    CMD("move", moveCommand, 3, W | F, K, 1, 1, 1, "Moves a key to another database.", "1.0.0", "generic"),
    CMD("touch", touchCommand, -2, R | F, K, 1, -1, 1, "Returns the number of existing keys out of those specified after updating the time they were last accessed.", "3.2.1", "generic"),
    CMD("dbsize", dbsizeCommand, 1, R | F, K, 0, 0, 0, "Returns the number of keys in the database.", "1.0.0", "server"),
    CMD("flushdb", flushdbCommand, -1, W, K | ACL_CAT_DANGEROUS, 0, 0, 0, "Remove all keys from the current database.", "1.0.0", "server"),
    CMD("flushall", flushallCommand, -1, W, K | ACL_CAT_DANGEROUS, 0, 0, 0, "Removes all keys from all databases.", "1.0.0", "server"),
    CMD("select", selectCommand, 2, L | S | F, CN, 0, 0, 0, "Changes the selected database.", "1.0.0", "connection"),
    CMD("swapdb", swapdbCommand, 3, W | F, K | ACL_CAT_DANGEROUS, 0, 0, 0, "Swaps two Redis databases.", "4.0.0", "server"),
    CMDS("object", -2, 0, K, "A container for object introspection commands.", "2.2.3", "generic", objectSubcommands),
    CMD("expire", expireCommand, -3, W | F, K, 1, 1, 1, "Sets the expiration time of a key in seconds.", "1.0.0", "generic"),
    CMD("pexpire", pexpireCommand, -3, W | F, K, 1, 1, 1, "Sets the expiration time of a key in milliseconds.", "2.6.0", "generic"),
    CMD("expireat", expireatCommand, -3, W | F, K, 1, 1, 1, "Sets the expiration time of a key to a Unix timestamp.", "1.2.0", "generic"),
    CMD("pexpireat", pexpireatCommand, -3, W | F, K, 1, 1, 1, "Sets the expiration time of a key to a Unix milliseconds timestamp.", "2.6.0", "generic"),
    CMD("ttl", ttlCommand, 2, R | F, K, 1, 1, 1, "Returns the expiration time in seconds of a key.", "1.0.0", "generic"),
    CMD("pttl", pttlCommand, 2, R | F, K, 1, 1, 1, "Returns the expiration time in milliseconds of a key.", "2.6.0", "generic"),
    CMD("expiretime", expiretimeCommand, 2, R | F, K, 1, 1, 1, "Returns the expiration time of a key as a Unix timestamp.", "7.0.0", "generic"),
    CMD("pexpiretime", pexpiretimeCommand, 2, R | F, K, 1, 1, 1, "Returns the expiration time of a key as a Unix milliseconds timestamp.", "7.0.0", "generic"),
    CMD("persist", persistCommand, 2, W | F, K, 1, 1, 1, "Removes the expiration time of a key.", "2.2.0", "generic"),
    /* transactions */
    CMD("multi", multiCommand, 1, NS | L | S | F | AB, ACL_CAT_TRANSACTION, 0, 0, 0, "Starts a transaction.", "1.2.0", "transactions"),
    CMD("exec", execCommand, 1, NS | L | S | CMD_SKIP_SLOWLOG, ACL_CAT_TRANSACTION, 0, 0, 0, "Executes all commands in a transaction.", "1.2.0", "transactions"),
    CMD("discard", discardCommand, 1, NS | L | S | F | AB, ACL_CAT_TRANSACTION, 0, 0, 0, "Discards a transaction.", "2.0.0", "transactions"),
    CMD("watch", watchCommand, -2, NS | L | S | F | AB, ACL_CAT_TRANSACTION, 1, -1, 1, "Monitors changes to keys to determine the execution of a transaction.", "2.2.0", "transactions"),
    CMD("unwatch", unwatchCommand, 1, NS | L | S | F | AB, ACL_CAT_TRANSACTION, 0, 0, 0, "Forgets about watched keys of a transaction.", "2.2.0", "transactions"),
    /* pub/sub */
    CMD("subscribe", subscribeCommand, -2, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Listens for messages published to channels.", "2.0.0", "pubsub"),
    CMD("unsubscribe", unsubscribeCommand, -1, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Stops listening to messages posted to channels.", "2.0.0", "pubsub"),
    CMD("psubscribe", psubscribeCommand, -2, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Listens for messages published to channels that match one or more patterns.", "2.0.0", "pubsub"),
    CMD("punsubscribe", punsubscribeCommand, -1, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Stops listening to messages published to channels that match one or more patterns.", "2.0.0", "pubsub"),
    CMD("ssubscribe", ssubscribeCommand, -2, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 1, -1, 1, "Listens for messages published to shard channels.", "7.0.0", "pubsub"),
    CMD("sunsubscribe", sunsubscribeCommand, -1, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 1, -1, 1, "Stops listening to messages posted to shard channels.", "7.0.0", "pubsub"),
    CMD("publish", publishCommand, 3, CMD_PUBSUB | L | S | F, ACL_CAT_PUBSUB, 0, 0, 0, "Posts a message to a channel.", "2.0.0", "pubsub"),
    CMD("spublish", spublishCommand, 3, CMD_PUBSUB | L | S | F | CMD_MAY_REPLICATE, ACL_CAT_PUBSUB, 1, 1, 1, "Post a message to a shard channel", "7.0.0", "pubsub"),
    CMDS("pubsub", -2, 0, ACL_CAT_PUBSUB, "A container for Pub/Sub commands.", "2.8.0", "pubsub", pubsubSubcommands),
    /* connection */
    CMD("ping", pingCommand, -1, F | SE, CN, 0, 0, 0, "Returns the server's liveliness response.", "1.0.0", "connection"),
    CMD("echo", echoCommand, 2, F, CN, 0, 0, 0, "Returns the given string.", "1.0.0", "connection"),
    CMD("quit", quitCommand, -1, AB | NS | L | S | F | NA, CN, 0, 0, 0, "Closes the connection.", "1.0.0", "connection"),
    CMD("hello", helloCommand, -1, NS | L | S | F | NA | SE | AB, CN, 0, 0, 0, "Handshakes with the Redis server.", "6.0.0", "connection"),
    CMD("auth", authCommand, -2, NS | L | S | F | NA | SE | AB, CN, 0, 0, 0, "Authenticates the connection.", "1.0.0", "connection"),
    CMD("reset", resetCommand, 1, NS | L | S | F | NA | AB, CN, 0, 0, 0, "Resets the connection.", "6.2.0", "connection"),
    CMDS("client", -2, SE, CN, "A container for client connection commands.", "2.4.0", "connection", clientSubcommands),
    /* server */
    CMDS("command", -1, L | S | SE, CN, "Returns detailed information about all commands.", "2.8.13", "server", commandSubcommands),
    CMDS("config", -2, 0, 0, "A container for server configuration commands.", "2.0.0", "server", configSubcommands),
    CMD("info", infoCommand, -1, L | S | SE, ACL_CAT_DANGEROUS, 0, 0, 0, "Returns information and statistics about the server.", "1.0.0", "server"),
    CMD("time", timeCommand, 1, L | S | F, 0, 0, 0, 0, "Returns the server time.", "2.6.0", "server"),
    CMD("debug", debugCommand, -2, A | NS | L | S | P, 0, 0, 0, 0, "A container for debugging commands.", "1.0.0", "server"),
    CMDS("slowlog", -2, 0, 0, "A container for slow log commands.", "2.2.12", "server", slowlogSubcommands),
    CMD("shutdown", shutdownCommand, -1, A | NS | L | S | CMD_NO_MULTI | SE | AB, 0, 0, 0, 0, "Synchronously saves the database(s) to disk and shuts down the Redis server.", "1.0.0", "server"),
    CMD("monitor", monitorCommand, 1, A | NS | L | S, 0, 0, 0, 0, "Listens for all requests received by the server in real-time.", "1.0.0", "server"),
    CMD("lastsave", lastsaveCommand, 1, L | S | F, 0, 0, 0, 0, "Returns the Unix timestamp of the last successful save to disk.", "1.0.0", "server"),
    CMDS("memory", -2, 0, 0, "A container for memory diagnostics commands.", "4.0.0", "server", memorySubcommands),
    END};

/* Names are stored lower-case and looked up after lower-casing into a stack
 * buffer: a case-sensitive hash is about twice as fast as the case-folding
 * one, and this lookup runs for every command. */
dictType commandTableDictType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, dictSdsDestructor,
                                 NULL, NULL};

#define COMMAND_NAME_MAX 64

static cairnCommand *commandFind(const char *name, size_t len) {
    if (len >= COMMAND_NAME_MAX) return NULL;
    /* A stack sds (type 8 header) so the dict's sds functions apply. */
    char buf[COMMAND_NAME_MAX + sizeof(struct sdshdr8)];
    struct sdshdr8 *sh = (struct sdshdr8 *)buf;
    sh->len = sh->alloc = (uint8_t)len;
    sh->flags = SDS_TYPE_8;
    for (size_t j = 0; j < len; j++) {
        char ch = name[j];
        sh->buf[j] = (ch >= 'A' && ch <= 'Z') ? ch + 32 : ch;
    }
    sh->buf[len] = '\0';
    return dictFetchValue(server.commands, sh->buf);
}

void commandsInit(void) {
    server.commands = dictCreate(&commandTableDictType);
    server.commands_list = commandTable;
    int id = 0;
    for (cairnCommand *c = commandTable; c->name; c++) {
        c->fullname = sdsnew(c->name);
        c->id = id++;
        dictAdd(server.commands, sdsnew(c->name), c);
        for (cairnCommand *s = c->subcommands; s && s->name; s++) {
            s->parent = c;
            s->fullname = sdscatprintf(sdsempty(), "%s|%s", c->name, s->name);
            s->id = id++;
        }
    }
}

static cairnCommand *commandFindSub(cairnCommand *parent, const char *name, size_t len) {
    for (cairnCommand *s = parent->subcommands; s->name; s++)
        if (strcaseeqlen(name, len, s->name)) return s;
    return NULL;
}

cairnCommand *commandLookupByName(const char *name) {
    sds n = sdsnew(name);
    int count = 0;
    sds *parts = sdssplitlen(n, sdslen(n), "|", 1, &count);
    cairnCommand *cmd = NULL;
    if (count >= 1) {
        cmd = commandFind(parts[0], sdslen(parts[0]));
        if (cmd && count == 2) cmd = cmd->subcommands ? commandFindSub(cmd, parts[1], sdslen(parts[1])) : NULL;
        else if (count > 2) cmd = NULL;
    }
    sdsfreesplitres(parts, count);
    sdsfree(n);
    return cmd;
}

/* The top-level command for argv[0], or the subcommand for argv[1] when
 * argv[0] is a container. NULL if unknown. */
cairnCommand *commandLookup(robj **argv, int argc) {
    cairnCommand *cmd = commandFind(argv[0]->ptr, sdslen(argv[0]->ptr));
    if (!cmd || !cmd->subcommands || argc < 2) return cmd;
    return commandFindSub(cmd, argv[1]->ptr, sdslen(argv[1]->ptr));
}

static void commandRejectUnknown(client *c) {
    cairnCommand *parent = commandFind(c->argv[0]->ptr, sdslen(c->argv[0]->ptr));
    if (parent && parent->subcommands && c->argc >= 2) {
        sds up = sdsnew(parent->name);
        sdstoupper(up);
        replyErrorFormat(c, "ERR unknown subcommand '%.128s'. Try %s HELP.",
                         (char *)c->argv[1]->ptr, up);
        sdsfree(up);
        return;
    }
    if (parent && parent->subcommands) {
        replyErrorFormat(c, "ERR wrong number of arguments for '%s' command", parent->name);
        return;
    }
    sds args = sdsempty();
    for (int i = 1; i < c->argc && sdslen(args) < 128; i++)
        args = sdscatprintf(args, "'%.*s' ", 128 - (int)sdslen(args), (char *)c->argv[i]->ptr);
    replyErrorFormat(c, "ERR unknown command '%.128s', with args beginning with: %s",
                     (char *)c->argv[0]->ptr, args);
    sdsfree(args);
}

/* A RESP2 connection with subscriptions speaks only the Pub/Sub dialect. */
static int commandAllowedInPubsub(cairnCommand *cmd) {
    commandProc *p = cmd->proc;
    return p == pingCommand || p == subscribeCommand || p == unsubscribeCommand ||
           p == psubscribeCommand || p == punsubscribeCommand || p == ssubscribeCommand ||
           p == sunsubscribeCommand || p == quitCommand || p == resetCommand;
}

int commandProcess(client *c) {
    replyBegin(c); /* the one output check of this command */
    replyMarkGet(c, &c->cmd_mark);
    cairnCommand *cmd = commandLookup(c->argv, c->argc);
    c->cmd = c->realcmd = cmd;
    if (cmd) c->lastcmd = cmd;
    if (!cmd) {
        commandRejectUnknown(c);
        multiFlagError(c);
    } else if ((cmd->arity > 0 && cmd->arity != c->argc) || (c->argc < -cmd->arity)) {
        cmd->rejected_calls++;
        replyErrorArity(c);
        multiFlagError(c);
    } else if (!(c->flags & CLIENT_AUTHENTICATED) && !(cmd->flags & CMD_NO_AUTH)) {
        cmd->rejected_calls++;
        replyError(c, "NOAUTH Authentication required.");
        multiFlagError(c);
    } else if ((c->flags & CLIENT_PUBSUB) && c->resp == 2 && !commandAllowedInPubsub(cmd)) {
        cmd->rejected_calls++;
        replyErrorFormat(c, "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                            "QUIT / RESET are allowed in this context",
                         cmd->fullname);
        multiFlagError(c);
    } else if ((cmd->flags & CMD_PROTECTED) &&
               !configAllowProtectedAction(cfg.enable_debug_cmd, c)) {
        cmd->rejected_calls++;
        replyError(c, "ERR DEBUG command not allowed. If the enable-debug-command option is set "
                      "to \"local\", you can run it from a local connection, otherwise you need to "
                      "set this option in the configuration file, and then restart the server.");
        multiFlagError(c);
    } else if ((c->flags & CLIENT_MULTI) && (cmd->flags & CMD_NO_MULTI)) {
        cmd->rejected_calls++;
        replyError(c, "ERR Command not allowed inside a transaction");
        multiFlagError(c);
    } else if (server.pause_type && commandIsPaused(c)) {
        /* Held until CLIENT UNPAUSE or the pause times out; the command
         * then runs as if it had just arrived. */
        c->flags |= CLIENT_POSTPONED;
        return C_OK;
    } else if ((c->flags & CLIENT_MULTI) && cmd->proc != execCommand &&
               cmd->proc != discardCommand && cmd->proc != multiCommand &&
               cmd->proc != watchCommand && cmd->proc != quitCommand &&
               cmd->proc != resetCommand) {
        multiQueueCommand(c);
    } else {
        commandCall(c);
    }
    /* CLIENT REPLY OFF/SKIP: drop whatever this command said. */
    if (c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) replyRollback(c, &c->cmd_mark);
    /* Invalidations this command caused for its own client follow its reply. */
    trackingHandlePending();
    /* Keys this command created may wake blocked clients, served right
     * after it so they see the state it left. */
    if (server.blocked_clients) handleClientsBlockedOnKeys();
    return C_OK;
}

void commandCall(client *c) {
    cairnCommand *cmd = c->cmd;
    long long dirty = server.dirty;
    long long errors = server.stat_total_error_replies;
    if (server.monitors && !(cmd->flags & (CMD_SKIP_MONITOR | CMD_ADMIN)))
        monitorFeed(c, c->db, c->argv, c->argc);
    long long start = ustime();
    server.cmd_time_snapshot = start / 1000;
    server.current_client = c;
    c->flags |= CLIENT_EXECUTING_COMMAND;
    cmd->proc(c);
    c->flags &= ~CLIENT_EXECUTING_COMMAND;
    long long duration = ustime() - start;
    dirty = server.dirty - dirty;
    c->commands_processed++;
    cmd->calls++;
    cmd->microseconds += duration;
    if (server.stat_total_error_replies > errors) cmd->failed_calls++;
    if ((c->flags & CLIENT_TRACKING) && !(c->flags & CLIENT_TRACKING_BCAST) &&
        (cmd->flags & CMD_READONLY))
        trackingRememberKeys(c);
    server.stat_numcommands++;
    if (cfg.slowlog_log_slower_than >= 0 && duration >= cfg.slowlog_log_slower_than &&
        !(cmd->flags & CMD_SKIP_SLOWLOG))
        slowlogPush(c, c->argv, c->argc, duration);
    /* The one propagation path: a command that changed the dataset is
     * encoded once, as its (possibly rewritten) argv, into the stream. */
    if (dirty > 0 && (cmd->flags & CMD_WRITE)) propagateCommand(c);
}

void commandResetStats(void) {
    for (cairnCommand *c = commandTable; c->name; c++) {
        c->calls = c->microseconds = c->rejected_calls = c->failed_calls = 0;
        for (cairnCommand *s = c->subcommands; s && s->name; s++)
            s->calls = s->microseconds = s->rejected_calls = s->failed_calls = 0;
    }
}

/* ---- key extraction ---- */

int commandGetKeys(cairnCommand *cmd, robj **argv, int argc, int *keys, int max) {
    if (cmd->firstkey <= 0) return 0;
    int last = cmd->lastkey < 0 ? argc + cmd->lastkey : cmd->lastkey;
    int n = 0;
    for (int j = cmd->firstkey; j <= last && j < argc && n < max; j += cmd->keystep) keys[n++] = j;
    (void)argv;
    return n;
}

/* ---- COMMAND ---- */

static const struct {
    uint64_t flag;
    const char *name;
} commandFlagNames[] = {
    {CMD_WRITE, "write"},       {CMD_READONLY, "readonly"},   {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"},       {CMD_PUBSUB, "pubsub"},       {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"}, {CMD_LOADING, "loading"},     {CMD_STALE, "stale"},
    {CMD_SKIP_MONITOR, "skip_monitor"}, {CMD_SKIP_SLOWLOG, "skip_slowlog"}, {CMD_FAST, "fast"},
    {CMD_NO_AUTH, "no_auth"},   {CMD_MAY_REPLICATE, "may_replicate"},
    {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"}, {CMD_NO_ASYNC_LOADING, "no_async_loading"},
    {CMD_NO_MULTI, "no_multi"}, {CMD_ALLOW_BUSY, "allow_busy"}, {0, NULL}};

static uint64_t commandAclCategories(cairnCommand *c) {
    uint64_t cats = c->acl_categories;
    if (c->flags & CMD_WRITE) cats |= ACL_CAT_WRITE;
    if (c->flags & CMD_READONLY) cats |= ACL_CAT_READ;
    if (c->flags & CMD_ADMIN) cats |= ACL_CAT_ADMIN | ACL_CAT_DANGEROUS;
    if (c->flags & CMD_FAST) cats |= ACL_CAT_FAST;
    else cats |= ACL_CAT_SLOW;
    return cats;
}

static void commandReplyFlags(client *c, cairnCommand *cmd) {
    int n = 0;
    for (int j = 0; commandFlagNames[j].name; j++)
        if (cmd->flags & commandFlagNames[j].flag) n++;
    replySetLen(c, n);
    for (int j = 0; commandFlagNames[j].name; j++)
        if (cmd->flags & commandFlagNames[j].flag)
            replyStatusC(c, commandFlagNames[j].name);
}

static void commandReplyAcl(client *c, cairnCommand *cmd) {
    static const struct {
        uint64_t cat;
        const char *name;
    } names[] = {/* Redis' order, which COMMAND INFO shows */
                 {ACL_CAT_KEYSPACE, "@keyspace"}, {ACL_CAT_READ, "@read"}, {ACL_CAT_WRITE, "@write"},
                 {ACL_CAT_SET, "@set"},           {ACL_CAT_SORTEDSET, "@sortedset"},
                 {ACL_CAT_LIST, "@list"},         {ACL_CAT_HASH, "@hash"},
                 {ACL_CAT_STRING, "@string"},     {ACL_CAT_BITMAP, "@bitmap"},
                 {ACL_CAT_HYPERLOGLOG, "@hyperloglog"}, {ACL_CAT_PUBSUB, "@pubsub"},
                 {ACL_CAT_ADMIN, "@admin"},       {ACL_CAT_FAST, "@fast"},
                 {ACL_CAT_SLOW, "@slow"},         {ACL_CAT_BLOCKING, "@blocking"},
                 {ACL_CAT_DANGEROUS, "@dangerous"}, {ACL_CAT_CONNECTION, "@connection"},
                 {ACL_CAT_TRANSACTION, "@transaction"}, {0, NULL}};
    uint64_t cats = commandAclCategories(cmd);
    int n = 0;
    for (int j = 0; names[j].name; j++)
        if (cats & names[j].cat) n++;
    replySetLen(c, n);
    for (int j = 0; names[j].name; j++)
        if (cats & names[j].cat) replyStatusC(c, names[j].name);
}

static void commandReplyKeySpecs(client *c, cairnCommand *cmd) {
    if (cmd->firstkey <= 0) {
        replyArrayLen(c, 0);
        return;
    }
    replyArrayLen(c, 1);
    replyMapLen(c, 3);
    replyBulkCString(c, "flags");
    const char *access = (cmd->flags & CMD_WRITE) ? "RW" : "RO";
    replySetLen(c, 2);
    replyStatusC(c, access);
    replyStatusC(c, (cmd->flags & CMD_WRITE) ? "update" : "access");
    replyBulkCString(c, "begin_search");
    replyMapLen(c, 2);
    replyBulkCString(c, "type");
    replyBulkCString(c, "index");
    replyBulkCString(c, "spec");
    replyMapLen(c, 1);
    replyBulkCString(c, "index");
    replyLongLong(c, cmd->firstkey);
    replyBulkCString(c, "find_keys");
    replyMapLen(c, 2);
    replyBulkCString(c, "type");
    replyBulkCString(c, "range");
    replyBulkCString(c, "spec");
    replyMapLen(c, 3);
    replyBulkCString(c, "lastkey");
    replyLongLong(c, cmd->lastkey < 0 ? cmd->lastkey : cmd->lastkey - cmd->firstkey);
    replyBulkCString(c, "keystep");
    replyLongLong(c, cmd->keystep);
    replyBulkCString(c, "limit");
    replyLongLong(c, 0);
}

static void commandReplyInfo(client *c, cairnCommand *cmd) {
    if (!cmd) {
        replyNull(c);
        return;
    }
    replyArrayLen(c, 10);
    replyBulkCString(c, cmd->fullname);
    replyLongLong(c, cmd->arity);
    commandReplyFlags(c, cmd);
    replyLongLong(c, cmd->firstkey);
    replyLongLong(c, cmd->lastkey);
    replyLongLong(c, cmd->keystep);
    commandReplyAcl(c, cmd);
    replySetLen(c, 0); /* tips */
    commandReplyKeySpecs(c, cmd);
    if (cmd->subcommands) {
        int n = 0;
        while (cmd->subcommands[n].name) n++;
        replyArrayLen(c, n);
        for (int j = 0; j < n; j++) commandReplyInfo(c, &cmd->subcommands[j]);
    } else {
        replyArrayLen(c, 0);
    }
}

static void commandReplyDocs(client *c, cairnCommand *cmd) {
    int subs = 0;
    while (cmd->subcommands && cmd->subcommands[subs].name) subs++;
    replyMapLen(c, subs ? 4 : 3);
    replyBulkCString(c, "summary");
    replyBulkCString(c, cmd->summary);
    replyBulkCString(c, "since");
    replyBulkCString(c, cmd->since);
    replyBulkCString(c, "group");
    replyBulkCString(c, cmd->group);
    if (subs) {
        replyBulkCString(c, "subcommands");
        replyMapLen(c, subs);
        for (int j = 0; j < subs; j++) {
            replyBulkCString(c, cmd->subcommands[j].fullname);
            commandReplyDocs(c, &cmd->subcommands[j]);
        }
    }
}

static int commandCount(void) {
    int n = 0;
    for (cairnCommand *c = commandTable; c->name; c++) n++;
    return n;
}

void commandCommand(client *c) {
    static const char *help[] = {
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
        NULL};
    if (c->argc == 1) {
        replyArrayLen(c, commandCount());
        for (cairnCommand *cmd = commandTable; cmd->name; cmd++) commandReplyInfo(c, cmd);
        return;
    }
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        replyHelp(c, help);
    } else if (!strcasecmp(sub, "count")) {
        replyLongLong(c, commandCount());
    } else if (!strcasecmp(sub, "list")) {
        if (c->argc != 2 && c->argc != 5) {
            replyErrorSyntax(c);
            return;
        }
        robj *pattern = NULL;
        if (c->argc == 5) {
            if (!argEq(c->argv[2], "filterby")) {
                replyErrorSyntax(c);
                return;
            }
            if (argEq(c->argv[3], "module") || argEq(c->argv[3], "aclcat")) {
                /* No modules or ACL categories yet: nothing matches. */
                replyArrayLen(c, 0);
                return;
            }
            if (!argEq(c->argv[3], "pattern")) {
                replyErrorSyntax(c);
                return;
            }
            pattern = c->argv[4];
        }
        void *dl = replyDeferredLen(c);
        long n = 0;
        for (cairnCommand *cmd = commandTable; cmd->name; cmd++) {
            if (!pattern || stringmatch(pattern->ptr, cmd->fullname, 1)) {
                replyBulkCString(c, cmd->fullname);
                n++;
            }
            for (cairnCommand *s = cmd->subcommands; s && s->name; s++)
                if (!pattern || stringmatch(pattern->ptr, s->fullname, 1)) {
                    replyBulkCString(c, s->fullname);
                    n++;
                }
        }
        replySetDeferredArrayLen(c, dl, n);
    } else if (!strcasecmp(sub, "info")) {
        if (c->argc == 2) {
            replyArrayLen(c, commandCount());
            for (cairnCommand *cmd = commandTable; cmd->name; cmd++) commandReplyInfo(c, cmd);
            return;
        }
        replyArrayLen(c, c->argc - 2);
        for (int j = 2; j < c->argc; j++) commandReplyInfo(c, commandLookupByName(c->argv[j]->ptr));
    } else if (!strcasecmp(sub, "docs")) {
        if (c->argc == 2) {
            replyMapLen(c, commandCount());
            for (cairnCommand *cmd = commandTable; cmd->name; cmd++) {
                replyBulkCString(c, cmd->fullname);
                commandReplyDocs(c, cmd);
            }
            return;
        }
        void *dl = replyDeferredLen(c);
        long n = 0;
        for (int j = 2; j < c->argc; j++) {
            cairnCommand *cmd = commandLookupByName(c->argv[j]->ptr);
            if (!cmd) continue;
            replyBulkCString(c, cmd->fullname);
            commandReplyDocs(c, cmd);
            n++;
        }
        replySetDeferredMapLen(c, dl, n);
    } else if (!strcasecmp(sub, "getkeys") || !strcasecmp(sub, "getkeysandflags")) {
        int withflags = !strcasecmp(sub, "getkeysandflags");
        cairnCommand *cmd = commandLookup(c->argv + 2, c->argc - 2);
        if (!cmd) {
            replyError(c, "ERR Invalid command specified");
            return;
        }
        if (cmd->firstkey <= 0) {
            replyError(c, "ERR The command has no key arguments");
            return;
        }
        if ((cmd->arity > 0 && cmd->arity != c->argc - 2) || (c->argc - 2 < -cmd->arity)) {
            replyError(c, "ERR Invalid number of arguments specified for command");
            return;
        }
        int max = c->argc;
        int *keys = zmalloc(sizeof(int) * max);
        int n = commandGetKeys(cmd, c->argv + 2, c->argc - 2, keys, max);
        if (n == 0) {
            replyError(c, "ERR The command has no key arguments");
        } else {
            replyArrayLen(c, n);
            for (int j = 0; j < n; j++) {
                if (withflags) {
                    replyArrayLen(c, 2);
                    replyBulk(c, c->argv[2 + keys[j]]);
                    replySetLen(c, 2);
                    replyStatusC(c, (cmd->flags & CMD_WRITE) ? "RW" : "RO");
                    replyStatusC(c, (cmd->flags & CMD_WRITE) ? "update" : "access");
                } else {
                    replyBulk(c, c->argv[2 + keys[j]]);
                }
            }
        }
        zfree(keys);
    } else {
        replyErrorSubcommand(c);
    }
}
