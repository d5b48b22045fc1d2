/* commands: the single command table and the path every command takes,
 * from argv to reply: lookup, arity and auth checks (commandProcess), then
 * execution, statistics, the slow log, MONITOR and propagation (commandCall).
 *
 * Adding a command is one row here plus one function. Rows carry the name,
 * arity (negative: at least), flags, the classic key positions (first, last,
 * step; last < 0 counts from the end), the ACL categories COMMAND INFO shows,
 * and the text COMMAND DOCS returns. */
#include "acl.h"
#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "db.h"
#include "dict.h"
#include "evict.h"
#include "log.h"
#include "multi.h"
#include "object.h"
#include "propagate.h"
#include "pubsub.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "slowlog.h"
#include "tracking.h"
#include "util.h"
#include "zmalloc.h"
#include "blocked.h"
#include "latency.h"
#include "t_bits.h"
#include "script.h"
#include "function.h"
#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "t_zset.h"
#include "sort.h"
#include "migrate.h"
#include "snapshot.h"
#include "aof.h"
#include "repl.h"
#include "waitaof.h"

#include <stdio.h>
#include <stdlib.h>

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
 * summary, since, group, then optionally KS(key specs), TIPS(tips) and
 * GETKEYS(proc).
 *
 * Key specs are those COMMAND INFO shows on Redis, one string per command:
 * specs separated by ';', each "flags|begin_search|find_keys[|notes]" where
 * flags are Redis' key flag names (RO RW OW RM access update insert delete
 * not_key incomplete variable_flags), begin_search is iN (index N),
 * kWORD,N (keyword WORD searched from N) or u (unknown), and find_keys is
 * rLAST,STEP,LIMIT (range), nIDX,FIRST,STEP (keynum) or u (unknown).
 * Example, LMOVE: "RW access delete|i1|r0,1,0;RW insert|i2|r0,1,0". */
#define CMD(name_, proc_, arity_, flags_, acl_, fk_, lk_, ks_, summary_, since_, group_, ...)      \
    {.name = name_, .proc = proc_, .arity = arity_, .flags = flags_, .acl_categories = acl_,         \
     .firstkey = fk_, .lastkey = lk_, .keystep = ks_, .summary = summary_, .since = since_,          \
     .group = group_, __VA_ARGS__}
#define CMDS(name_, arity_, flags_, acl_, summary_, since_, group_, subs_, ...)                      \
    {.name = name_, .arity = arity_, .flags = flags_, .acl_categories = acl_, .summary = summary_,  \
     .since = since_, .group = group_, .subcommands = subs_, __VA_ARGS__}
#define END {.name = NULL}
#define KS(specs) .keyspecs = (specs)
#define TIPS(tips_) .tips = (tips_)
#define GETKEYS(proc_) .getkeys = (proc_)

static void commandInitKeys(cairnCommand *cmd);
static int commandSetGetKeys(robj **argv, int argc, cmdKeyRef *keys);
static int commandBitfieldGetKeys(robj **argv, int argc, cmdKeyRef *keys);
static int commandNumkeysAt1GetKeys(robj **argv, int argc, cmdKeyRef *keys);
static int commandNumkeysAt2GetKeys(robj **argv, int argc, cmdKeyRef *keys);
static int commandStoreNumkeysGetKeys(robj **argv, int argc, cmdKeyRef *keys);

static cairnCommand objectSubcommands[] = {
    CMD("encoding", objectCommand, 3, R, K, 2, 2, 1, "Inspect the internal encoding of a Redis object", "2.2.3", "generic", KS("RO|i2|r0,1,0"), TIPS("nondeterministic_output")),
    CMD("freq", objectCommand, 3, R, K, 2, 2, 1, "Get the logarithmic access frequency counter of a Redis object", "4.0.0", "generic", KS("RO|i2|r0,1,0"), TIPS("nondeterministic_output")),
    CMD("idletime", objectCommand, 3, R, K, 2, 2, 1, "Get the time since a Redis object was last accessed", "2.2.3", "generic", KS("RO|i2|r0,1,0"), TIPS("nondeterministic_output")),
    CMD("refcount", objectCommand, 3, R, K, 2, 2, 1, "Get the number of references to the value of the key", "2.2.3", "generic", KS("RO|i2|r0,1,0"), TIPS("nondeterministic_output")),
    CMD("help", objectCommand, 2, L | S, K, 0, 0, 0, "Show helpful text about the different subcommands", "6.2.0", "generic"),
    END};

static cairnCommand clientSubcommands[] = {
    CMD("id", clientCommand, 2, NS | L | S, CN, 0, 0, 0, "Returns the client ID for the current connection", "5.0.0", "connection"),
    CMD("setname", clientCommand, 3, NS | L | S, CN, 0, 0, 0, "Set the current connection name", "2.6.9", "connection"),
    CMD("getname", clientCommand, 2, NS | L | S, CN, 0, 0, 0, "Get the current connection name", "2.6.9", "connection"),
    CMD("list", clientCommand, -2, A | NS | L | S, CN, 0, 0, 0, "Get the list of client connections", "2.4.0", "connection", TIPS("nondeterministic_output")),
    CMD("info", clientCommand, 2, NS | L | S, CN, 0, 0, 0, "Returns information about the current client connection.", "6.2.0", "connection", TIPS("nondeterministic_output")),
    CMD("kill", clientCommand, -3, A | NS | L | S, CN, 0, 0, 0, "Kill the connection of a client", "2.4.0", "connection"),
    CMD("no-evict", clientCommand, 3, A | NS | L | S, CN, 0, 0, 0, "Set client eviction mode for the current connection", "7.0.0", "connection"),
    CMD("reply", clientCommand, 3, NS | L | S, CN, 0, 0, 0, "Instruct the server whether to reply to commands", "3.2.0", "connection"),
    CMD("tracking", trackingCommand, -3, NS | L | S, CN, 0, 0, 0, "Enable or disable server assisted client side caching support", "6.0.0", "connection"),
    CMD("caching", trackingCachingCommand, 3, NS | L | S, CN, 0, 0, 0, "Instruct the server about tracking or not keys in the next request", "6.0.0", "connection"),
    CMD("getredir", trackingGetRedirCommand, 2, NS | L | S, CN, 0, 0, 0, "Get tracking notifications redirection client ID if any", "6.0.0", "connection"),
    CMD("trackinginfo", trackingInfoCommand, 2, NS | L | S, CN, 0, 0, 0, "Return information about server assisted client side caching for the current connection", "6.2.0", "connection"),
    CMD("pause", clientCommand, -3, A | NS | L | S, CN, 0, 0, 0, "Stop processing commands from clients for some time", "2.9.50", "connection"),
    CMD("unpause", clientCommand, 2, A | NS | L | S, CN, 0, 0, 0, "Resume processing of clients that were paused", "6.2.0", "connection"),
    CMD("unblock", clientCommand, -3, A | NS | L | S, CN, 0, 0, 0, "Unblock a client blocked in a blocking command from a different connection", "5.0.0", "connection"),
    CMD("help", clientCommand, 2, L | S, CN, 0, 0, 0, "Show helpful text about the different subcommands", "5.0.0", "connection"),
    END};

static cairnCommand commandSubcommands[] = {
    CMD("count", commandCommand, 2, L | S, CN, 0, 0, 0, "Get total number of Redis commands", "2.8.13", "server"),
    CMD("info", commandCommand, -2, L | S, CN, 0, 0, 0, "Get array of specific Redis command details, or all when no argument is given.", "2.8.13", "server", TIPS("nondeterministic_output_order")),
    CMD("docs", commandCommand, -2, L | S, CN, 0, 0, 0, "Get array of specific Redis command documentation", "7.0.0", "server", TIPS("nondeterministic_output_order")),
    CMD("list", commandCommand, -2, L | S, CN, 0, 0, 0, "Get an array of Redis command names", "7.0.0", "server", TIPS("nondeterministic_output_order")),
    CMD("getkeys", commandCommand, -4, L | S, CN, 0, 0, 0, "Extract keys given a full Redis command", "2.8.13", "server"),
    CMD("getkeysandflags", commandCommand, -4, L | S, CN, 0, 0, 0, "Extract keys and access flags given a full Redis command", "7.0.0", "server"),
    CMD("help", commandCommand, 2, L | S, CN, 0, 0, 0, "Show helpful text about the different subcommands", "5.0.0", "server"),
    END};

static cairnCommand slowlogSubcommands[] = {
    CMD("get", slowlogCommand, -2, A | L | S, 0, 0, 0, 0, "Get the slow log's entries", "2.2.12", "server", TIPS("request_policy:all_nodes nondeterministic_output")),
    CMD("len", slowlogCommand, 2, A | L | S, 0, 0, 0, 0, "Get the slow log's length", "2.2.12", "server", TIPS("request_policy:all_nodes response_policy:agg_sum nondeterministic_output")),
    CMD("reset", slowlogCommand, 2, A | L | S, 0, 0, 0, 0, "Clear all entries from the slow log", "2.2.12", "server", TIPS("request_policy:all_nodes response_policy:all_succeeded")),
    CMD("help", slowlogCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands", "6.2.0", "server"),
    END};

#define LAT_TIPS "nondeterministic_output request_policy:all_nodes response_policy:special"
static cairnCommand latencySubcommands[] = {
    CMD("doctor", latencyCommand, 2, A | NS | L | S, 0, 0, 0, 0, "Return a human readable latency analysis report.", "2.8.13", "server", TIPS(LAT_TIPS)),
    CMD("graph", latencyCommand, 3, A | NS | L | S, 0, 0, 0, 0, "Return a latency graph for the event.", "2.8.13", "server", TIPS(LAT_TIPS)),
    CMD("histogram", latencyCommand, -2, A | NS | L | S, 0, 0, 0, 0, "Return the cumulative distribution of latencies of a subset of commands or all.", "7.0.0", "server", TIPS(LAT_TIPS)),
    CMD("history", latencyCommand, 3, A | NS | L | S, 0, 0, 0, 0, "Return timestamp-latency samples for the event.", "2.8.13", "server", TIPS(LAT_TIPS)),
    CMD("latest", latencyCommand, 2, A | NS | L | S, 0, 0, 0, 0, "Return the latest latency samples for all events.", "2.8.13", "server", TIPS(LAT_TIPS)),
    CMD("reset", latencyCommand, -2, A | NS | L | S, 0, 0, 0, 0, "Reset latency data for one or more events.", "2.8.13", "server", TIPS("request_policy:all_nodes response_policy:all_succeeded")),
    CMD("help", latencyCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands.", "2.8.13", "server"),
    END};

static cairnCommand configSubcommands[] = {
    CMD("get", configCommand, -3, A | NS | L | S, 0, 0, 0, 0, "Get the values of configuration parameters", "2.0.0", "server"),
    CMD("set", configCommand, -4, A | NS | L | S, 0, 0, 0, 0, "Set configuration parameters to the given values", "2.0.0", "server", TIPS("request_policy:all_nodes response_policy:all_succeeded")),
    CMD("resetstat", configCommand, 2, A | NS | L | S, 0, 0, 0, 0, "Reset the stats returned by INFO", "2.0.0", "server"),
    CMD("rewrite", configCommand, 2, A | NS | L | S, 0, 0, 0, 0, "Rewrite the configuration file with the in memory configuration", "2.8.0", "server"),
    CMD("help", configCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands", "5.0.0", "server"),
    END};

static cairnCommand memorySubcommands[] = {
    CMD("usage", memoryCommand, -3, R, 0, 2, 2, 1, "Estimate the memory usage of a key", "4.0.0", "server", KS("RO|i2|r0,1,0")),
    CMD("stats", memoryCommand, 2, 0, 0, 0, 0, 0, "Show memory usage details", "4.0.0", "server", TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    CMD("doctor", memoryCommand, 2, 0, 0, 0, 0, 0, "Outputs memory problems report", "4.0.0", "server", TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    CMD("malloc-stats", memoryCommand, 2, 0, 0, 0, 0, 0, "Show allocator internal stats", "4.0.0", "server", TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    CMD("purge", memoryCommand, 2, 0, 0, 0, 0, 0, "Ask the allocator to release memory", "4.0.0", "server", TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("help", memoryCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands", "4.0.0", "server"),
    END};

#define MOD_ADM (A | NS | CMD_NO_ASYNC_LOADING)
static cairnCommand moduleSubcommands[] = {
    CMD("list", moduleCommand, 2, A | NS, 0, 0, 0, 0, "List all modules loaded by the server", "4.0.0", "server", TIPS("nondeterministic_output_order")),
    CMD("load", moduleCommand, -3, MOD_ADM | P, 0, 0, 0, 0, "Load a module", "4.0.0", "server"),
    CMD("loadex", moduleCommand, -3, MOD_ADM | P, 0, 0, 0, 0, "Load a module with extended parameters", "7.0.0", "server"),
    CMD("unload", moduleCommand, 3, MOD_ADM | P, 0, 0, 0, 0, "Unload a module", "4.0.0", "server"),
    CMD("help", moduleCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands", "5.0.0", "server"),
    END};

static cairnCommand pubsubSubcommands[] = {
    CMD("channels", pubsubCommand, -2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "List active channels", "2.8.0", "pubsub"),
    CMD("numpat", pubsubCommand, 2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Get the count of unique patterns pattern subscriptions", "2.8.0", "pubsub"),
    CMD("numsub", pubsubCommand, -2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Get the count of subscribers for channels", "2.8.0", "pubsub"),
    CMD("shardchannels", pubsubCommand, -2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "List active shard channels", "7.0.0", "pubsub"),
    CMD("shardnumsub", pubsubCommand, -2, CMD_PUBSUB | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Get the count of subscribers for shard channels", "7.0.0", "pubsub"),
    CMD("help", pubsubCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands", "6.2.0", "pubsub"),
    END};

/* CLUSTER (every subcommand), READONLY, READWRITE and ASKING. cairn is a
 * standalone server only (cluster-enabled yes is refused at start-up), and
 * this is what Redis answers to all of them outside cluster mode; cluster-
 * aware clients probe with them on connect and recognise this exact text.
 * The subcommand rows exist so that COMMAND shows what Redis shows, and so
 * arity errors and unknown subcommands come before the disabled error. */
static void clusterDisabledCommand(client *c) {
    replyError(c, "ERR This instance has cluster support disabled");
}

#define CLA (A | S | CMD_NO_ASYNC_LOADING)
static cairnCommand clusterSubcommands[] = {
    CMD("addslots", clusterDisabledCommand, -3, CLA, 0, 0, 0, 0, "Assign new hash slots to receiving node", "3.0.0", "cluster"),
    CMD("addslotsrange", clusterDisabledCommand, -4, CLA, 0, 0, 0, 0, "Assign new hash slots to receiving node", "7.0.0", "cluster"),
    CMD("bumpepoch", clusterDisabledCommand, 2, CLA, 0, 0, 0, 0, "Advance the cluster config epoch", "3.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("count-failure-reports", clusterDisabledCommand, 3, A | S, 0, 0, 0, 0, "Return the number of failure reports active for a given node", "3.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("countkeysinslot", clusterDisabledCommand, 3, S, 0, 0, 0, 0, "Return the number of local keys in the specified hash slot", "3.0.0", "cluster"),
    CMD("delslots", clusterDisabledCommand, -3, CLA, 0, 0, 0, 0, "Set hash slots as unbound in receiving node", "3.0.0", "cluster"),
    CMD("delslotsrange", clusterDisabledCommand, -4, CLA, 0, 0, 0, 0, "Set hash slots as unbound in receiving node", "7.0.0", "cluster"),
    CMD("failover", clusterDisabledCommand, -2, CLA, 0, 0, 0, 0, "Forces a replica to perform a manual failover of its master.", "3.0.0", "cluster"),
    CMD("flushslots", clusterDisabledCommand, 2, CLA, 0, 0, 0, 0, "Delete a node's own slots information", "3.0.0", "cluster"),
    CMD("forget", clusterDisabledCommand, 3, CLA, 0, 0, 0, 0, "Remove a node from the nodes table", "3.0.0", "cluster"),
    CMD("getkeysinslot", clusterDisabledCommand, 4, S, 0, 0, 0, 0, "Return local key names in the specified hash slot", "3.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("help", clusterDisabledCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands", "5.0.0", "cluster"),
    CMD("info", clusterDisabledCommand, 2, S, 0, 0, 0, 0, "Provides info about Redis Cluster node state", "3.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("keyslot", clusterDisabledCommand, 3, S, 0, 0, 0, 0, "Returns the hash slot of the specified key", "3.0.0", "cluster"),
    CMD("links", clusterDisabledCommand, 2, S, 0, 0, 0, 0, "Returns a list of all TCP links to and from peer nodes in cluster", "7.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("meet", clusterDisabledCommand, -4, CLA, 0, 0, 0, 0, "Force a node cluster to handshake with another node", "3.0.0", "cluster"),
    CMD("myid", clusterDisabledCommand, 2, S, 0, 0, 0, 0, "Return the node id", "3.0.0", "cluster"),
    CMD("nodes", clusterDisabledCommand, 2, S, 0, 0, 0, 0, "Get Cluster config for the node", "3.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("replicas", clusterDisabledCommand, 3, A | S, 0, 0, 0, 0, "List replica nodes of the specified master node", "5.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("replicate", clusterDisabledCommand, 3, CLA, 0, 0, 0, 0, "Reconfigure a node as a replica of the specified master node", "3.0.0", "cluster"),
    CMD("reset", clusterDisabledCommand, -2, A | NS | S, 0, 0, 0, 0, "Reset a Redis Cluster node", "3.0.0", "cluster"),
    CMD("saveconfig", clusterDisabledCommand, 2, CLA, 0, 0, 0, 0, "Forces the node to save cluster state on disk", "3.0.0", "cluster"),
    CMD("set-config-epoch", clusterDisabledCommand, 3, CLA, 0, 0, 0, 0, "Set the configuration epoch in a new node", "3.0.0", "cluster"),
    CMD("setslot", clusterDisabledCommand, -4, CLA, 0, 0, 0, 0, "Bind a hash slot to a specific node", "3.0.0", "cluster"),
    CMD("shards", clusterDisabledCommand, 2, S, 0, 0, 0, 0, "Get array of cluster slots to node mappings", "7.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("slaves", clusterDisabledCommand, 3, A | S, 0, 0, 0, 0, "List replica nodes of the specified master node", "3.0.0", "cluster", TIPS("nondeterministic_output")),
    CMD("slots", clusterDisabledCommand, 2, S, 0, 0, 0, 0, "Get array of Cluster slot to node mappings", "3.0.0", "cluster", TIPS("nondeterministic_output")),
    END};

#define ADM (A | NS | L | S)
static cairnCommand aclSubcommands[] = {
    CMD("cat", aclCommand, -2, NS | L | S, 0, 0, 0, 0, "List the ACL categories or the commands inside a category", "6.0.0", "server"),
    CMD("deluser", aclCommand, -3, ADM, 0, 0, 0, 0, "Remove the specified ACL users and the associated rules", "6.0.0", "server"),
    CMD("dryrun", aclCommand, -4, ADM, 0, 0, 0, 0, "Returns whether the user can execute the given command without executing the command.", "7.0.0", "server"),
    CMD("genpass", aclCommand, -2, NS | L | S, 0, 0, 0, 0, "Generate a pseudorandom secure password to use for ACL users", "6.0.0", "server"),
    CMD("getuser", aclCommand, 3, ADM, 0, 0, 0, 0, "Get the rules for a specific ACL user", "6.0.0", "server"),
    CMD("help", aclCommand, 2, L | S, 0, 0, 0, 0, "Show helpful text about the different subcommands", "6.0.0", "server"),
    CMD("list", aclCommand, 2, ADM, 0, 0, 0, 0, "List the current ACL rules in ACL config file format", "6.0.0", "server"),
    CMD("load", aclCommand, 2, ADM, 0, 0, 0, 0, "Reload the ACLs from the configured ACL file", "6.0.0", "server"),
    CMD("log", aclCommand, -2, ADM, 0, 0, 0, 0, "List latest events denied because of ACLs in place", "6.0.0", "server"),
    CMD("save", aclCommand, 2, ADM, 0, 0, 0, 0, "Save the current ACL rules in the configured ACL file", "6.0.0", "server"),
    CMD("setuser", aclCommand, -3, ADM, 0, 0, 0, 0, "Modify or create the rules for a specific ACL user", "6.0.0", "server"),
    CMD("users", aclCommand, 2, ADM, 0, 0, 0, 0, "List the username of all the configured ACL rules", "6.0.0", "server"),
    CMD("whoami", aclCommand, 2, NS | L | S, 0, 0, 0, 0, "Return the name of the user associated to the current connection", "6.0.0", "server"),
    END};
#undef ADM

static cairnCommand scriptSubcommands[] = {
    CMD("debug", scriptCommand, 3, NS, ACL_CAT_SCRIPTING, 0, 0, 0, "Set the debug mode for executed scripts.", "3.2.0", "scripting"),
    CMD("exists", scriptCommand, -3, NS, ACL_CAT_SCRIPTING, 0, 0, 0, "Check existence of scripts in the script cache.", "2.6.0", "scripting", TIPS("request_policy:all_shards response_policy:agg_logical_and")),
    CMD("flush", scriptCommand, -2, NS, ACL_CAT_SCRIPTING, 0, 0, 0, "Remove all the scripts from the script cache.", "2.6.0", "scripting", TIPS("request_policy:all_nodes response_policy:all_succeeded")),
    CMD("help", scriptCommand, 2, L | S, ACL_CAT_SCRIPTING, 0, 0, 0, "Show helpful text about the different subcommands", "5.0.0", "scripting"),
    CMD("kill", scriptCommand, 2, NS | AB, ACL_CAT_SCRIPTING, 0, 0, 0, "Kill the script currently in execution.", "2.6.0", "scripting", TIPS("request_policy:all_shards response_policy:one_succeeded")),
    CMD("load", scriptCommand, 3, NS | S, ACL_CAT_SCRIPTING, 0, 0, 0, "Load the specified Lua script into the script cache.", "2.6.0", "scripting", TIPS("request_policy:all_nodes response_policy:all_succeeded")),
    END};

static cairnCommand functionSubcommands[] = {
    CMD("delete", functionCommand, 3, W | NS, ACL_CAT_WRITE | ACL_CAT_SCRIPTING, 0, 0, 0, "Delete a function by name", "7.0.0", "scripting", TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("dump", functionCommand, 2, NS, ACL_CAT_SCRIPTING, 0, 0, 0, "Dump all functions into a serialized binary payload", "7.0.0", "scripting"),
    CMD("flush", functionCommand, -2, W | NS, ACL_CAT_WRITE | ACL_CAT_SCRIPTING, 0, 0, 0, "Deleting all functions", "7.0.0", "scripting", TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("help", functionCommand, 2, L | S, ACL_CAT_SCRIPTING, 0, 0, 0, "Show helpful text about the different subcommands", "7.0.0", "scripting"),
    CMD("kill", functionCommand, 2, NS | AB, ACL_CAT_SCRIPTING, 0, 0, 0, "Kill the function currently in execution.", "7.0.0", "scripting", TIPS("request_policy:all_shards response_policy:one_succeeded")),
    CMD("list", functionCommand, -2, NS, ACL_CAT_SCRIPTING, 0, 0, 0, "List information about all the functions", "7.0.0", "scripting", TIPS("nondeterministic_output_order")),
    CMD("load", functionCommand, -3, W | M | NS, ACL_CAT_WRITE | ACL_CAT_SCRIPTING, 0, 0, 0, "Create a function with the given arguments (name, code, description)", "7.0.0", "scripting", TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("restore", functionCommand, -3, W | M | NS, ACL_CAT_WRITE | ACL_CAT_SCRIPTING, 0, 0, 0, "Restore all the functions on the given payload", "7.0.0", "scripting", TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("stats", functionCommand, 2, NS | AB, ACL_CAT_SCRIPTING, 0, 0, 0, "Return information about the function currently running (name, description, duration)", "7.0.0", "scripting", TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    END};

static cairnCommand commandTable[] = {
    /* strings */
    CMD("get", getCommand, 2, R | F, STR, 1, 1, 1, "Get the value of a key", "1.0.0", "string", KS("RO access|i1|r0,1,0")),
    CMD("set", setCommand, -3, W | M, STR, 1, 1, 1, "Set the string value of a key", "1.0.0", "string", KS("RW access update variable_flags|i1|r0,1,0|RW and ACCESS due to the optional `GET` argument"), GETKEYS(commandSetGetKeys)),
    CMD("setnx", setnxCommand, 3, W | M | F, STR, 1, 1, 1, "Set the value of a key, only if the key does not exist", "1.0.0", "string", KS("OW insert|i1|r0,1,0")),
    CMD("setex", setexCommand, 4, W | M, STR, 1, 1, 1, "Set the value and expiration of a key", "2.0.0", "string", KS("OW update|i1|r0,1,0")),
    CMD("psetex", psetexCommand, 4, W | M, STR, 1, 1, 1, "Set the value and expiration in milliseconds of a key", "2.6.0", "string", KS("OW update|i1|r0,1,0")),
    CMD("getset", getsetCommand, 3, W | M | F, STR, 1, 1, 1, "Set the string value of a key and return its old value", "1.0.0", "string", KS("RW access update|i1|r0,1,0")),
    CMD("getdel", getdelCommand, 2, W | F, STR, 1, 1, 1, "Get the value of a key and delete the key", "6.2.0", "string", KS("RW access delete|i1|r0,1,0")),
    CMD("getex", getexCommand, -2, W | F, STR, 1, 1, 1, "Get the value of a key and optionally set its expiration", "6.2.0", "string", KS("RW access update|i1|r0,1,0|RW and UPDATE because it changes the TTL")),
    CMD("mget", mgetCommand, -2, R | F, STR, 1, -1, 1, "Get the values of all the given keys", "1.0.0", "string", KS("RO access|i1|r-1,1,0"), TIPS("request_policy:multi_shard")),
    CMD("mset", msetCommand, -3, W | M, STR, 1, -1, 2, "Set multiple keys to multiple values", "1.0.1", "string", KS("OW update|i1|r-1,2,0"), TIPS("request_policy:multi_shard response_policy:all_succeeded")),
    CMD("msetnx", msetnxCommand, -3, W | M, STR, 1, -1, 2, "Set multiple keys to multiple values, only if none of the keys exist", "1.0.1", "string", KS("OW insert|i1|r-1,2,0"), TIPS("request_policy:multi_shard response_policy:agg_min")),
    CMD("incr", incrCommand, 2, W | M | F, STR, 1, 1, 1, "Increment the integer value of a key by one", "1.0.0", "string", KS("RW access update|i1|r0,1,0")),
    CMD("decr", decrCommand, 2, W | M | F, STR, 1, 1, 1, "Decrement the integer value of a key by one", "1.0.0", "string", KS("RW access update|i1|r0,1,0")),
    CMD("incrby", incrbyCommand, 3, W | M | F, STR, 1, 1, 1, "Increment the integer value of a key by the given amount", "1.0.0", "string", KS("RW access update|i1|r0,1,0")),
    CMD("decrby", decrbyCommand, 3, W | M | F, STR, 1, 1, 1, "Decrement the integer value of a key by the given number", "1.0.0", "string", KS("RW access update|i1|r0,1,0")),
    CMD("incrbyfloat", incrbyfloatCommand, 3, W | M | F, STR, 1, 1, 1, "Increment the float value of a key by the given amount", "2.6.0", "string", KS("RW access update|i1|r0,1,0")),
    CMD("append", appendCommand, 3, W | M | F, STR, 1, 1, 1, "Append a value to a key", "2.0.0", "string", KS("RW insert|i1|r0,1,0")),
    CMD("setrange", setrangeCommand, 4, W | M, STR, 1, 1, 1, "Overwrite part of a string at key starting at the specified offset", "2.2.0", "string", KS("RW update|i1|r0,1,0")),
    CMD("getrange", getrangeCommand, 4, R, STR, 1, 1, 1, "Get a substring of the string stored at a key", "2.4.0", "string", KS("RO access|i1|r0,1,0")),
    CMD("substr", getrangeCommand, 4, R, STR, 1, 1, 1, "Get a substring of the string stored at a key", "1.0.0", "string", KS("RO access|i1|r0,1,0")),
    CMD("strlen", strlenCommand, 2, R | F, STR, 1, 1, 1, "Get the length of the value stored in a key", "2.2.0", "string", KS("RO|i1|r0,1,0")),
    CMD("lcs", lcsCommand, -3, R, STR, 1, 2, 1, "Find longest common substring", "7.0.0", "string", KS("RO access|i1|r1,1,0")),
    /* data types: rows live next to their commands' declarations */
    LIST_COMMANDS
    HASH_COMMANDS
    SET_COMMANDS
    ZSET_COMMANDS
    BITS_COMMANDS
    SORT_COMMANDS
    MIGRATE_COMMANDS
    /* keyspace */
    CMD("del", delCommand, -2, W, K, 1, -1, 1, "Delete a key", "1.0.0", "generic", KS("RM delete|i1|r-1,1,0"), TIPS("request_policy:multi_shard response_policy:agg_sum")),
    CMD("unlink", unlinkCommand, -2, W | F, K, 1, -1, 1, "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.", "4.0.0", "generic", KS("RM delete|i1|r-1,1,0"), TIPS("request_policy:multi_shard response_policy:agg_sum")),
    CMD("exists", existsCommand, -2, R | F, K, 1, -1, 1, "Determine if a key exists", "1.0.0", "generic", KS("RO|i1|r-1,1,0"), TIPS("request_policy:multi_shard response_policy:agg_sum")),
    CMD("type", typeCommand, 2, R | F, K, 1, 1, 1, "Determine the type stored at key", "1.0.0", "generic", KS("RO|i1|r0,1,0")),
    CMD("keys", keysCommand, 2, R, K | ACL_CAT_DANGEROUS, 0, 0, 0, "Find all keys matching the given pattern", "1.0.0", "generic", TIPS("request_policy:all_shards nondeterministic_output_order")),
    CMD("scan", scanCommand, -2, R, K, 0, 0, 0, "Incrementally iterate the keys space", "2.8.0", "generic", TIPS("nondeterministic_output request_policy:special")),
    CMD("randomkey", randomkeyCommand, 1, R, K, 0, 0, 0, "Return a random key from the keyspace", "1.0.0", "generic", TIPS("request_policy:all_shards nondeterministic_output")),
    CMD("rename", renameCommand, 3, W, K, 1, 2, 1, "Rename a key", "1.0.0", "generic", KS("RW access delete|i1|r0,1,0;OW update|i2|r0,1,0")),
    CMD("renamenx", renamenxCommand, 3, W | F, K, 1, 2, 1, "Rename a key, only if the new key does not exist", "1.0.0", "generic", KS("RW access delete|i1|r0,1,0;OW insert|i2|r0,1,0")),
    CMD("copy", copyCommand, -3, W | M, K, 1, 2, 1, "Copy a key", "6.2.0", "generic", KS("RO access|i1|r0,1,0;OW update|i2|r0,1,0")),
    CMD("dump", dumpCommand, 2, R, K, 1, 1, 1, "Return a serialized version of the value stored at the specified key.", "2.6.0", "generic", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")),
    CMD("restore", restoreCommand, -4, W | M, K | ACL_CAT_DANGEROUS, 1, 1, 1, "Create a key using the provided serialized value, previously obtained using DUMP.", "2.6.0", "generic", KS("OW update|i1|r0,1,0")),
    CMD("move", moveCommand, 3, W | F, K, 1, 1, 1, "Move a key to another database", "1.0.0", "generic", KS("RW access update|i1|r0,1,0")),
    CMD("touch", touchCommand, -2, R | F, K, 1, -1, 1, "Alters the last access time of a key(s). Returns the number of existing keys specified.", "3.2.1", "generic", KS("RO|i1|r-1,1,0"), TIPS("request_policy:multi_shard response_policy:agg_sum")),
    CMD("dbsize", dbsizeCommand, 1, R | F, K, 0, 0, 0, "Return the number of keys in the selected database", "1.0.0", "server", TIPS("request_policy:all_shards response_policy:agg_sum")),
    CMD("flushdb", flushdbCommand, -1, W, K | ACL_CAT_DANGEROUS, 0, 0, 0, "Remove all keys from the current database", "1.0.0", "server", TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("flushall", flushallCommand, -1, W, K | ACL_CAT_DANGEROUS, 0, 0, 0, "Remove all keys from all databases", "1.0.0", "server", TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("select", selectCommand, 2, L | S | F, CN, 0, 0, 0, "Change the selected database for the current connection", "1.0.0", "connection"),
    CMD("swapdb", swapdbCommand, 3, W | F, K | ACL_CAT_DANGEROUS, 0, 0, 0, "Swaps two Redis databases", "4.0.0", "server"),
    CMDS("object", -2, 0, 0, "A container for object introspection commands", "2.2.3", "generic", objectSubcommands),
    CMD("expire", expireCommand, -3, W | F, K, 1, 1, 1, "Set a key's time to live in seconds", "1.0.0", "generic", KS("RW update|i1|r0,1,0")),
    CMD("pexpire", pexpireCommand, -3, W | F, K, 1, 1, 1, "Set a key's time to live in milliseconds", "2.6.0", "generic", KS("RW update|i1|r0,1,0")),
    CMD("expireat", expireatCommand, -3, W | F, K, 1, 1, 1, "Set the expiration for a key as a UNIX timestamp", "1.2.0", "generic", KS("RW update|i1|r0,1,0")),
    CMD("pexpireat", pexpireatCommand, -3, W | F, K, 1, 1, 1, "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "2.6.0", "generic", KS("RW update|i1|r0,1,0")),
    CMD("ttl", ttlCommand, 2, R | F, K, 1, 1, 1, "Get the time to live for a key in seconds", "1.0.0", "generic", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")),
    CMD("pttl", pttlCommand, 2, R | F, K, 1, 1, 1, "Get the time to live for a key in milliseconds", "2.6.0", "generic", KS("RO access|i1|r0,1,0"), TIPS("nondeterministic_output")),
    CMD("expiretime", expiretimeCommand, 2, R | F, K, 1, 1, 1, "Get the expiration Unix timestamp for a key", "7.0.0", "generic", KS("RO access|i1|r0,1,0")),
    CMD("pexpiretime", pexpiretimeCommand, 2, R | F, K, 1, 1, 1, "Get the expiration Unix timestamp for a key in milliseconds", "7.0.0", "generic", KS("RO access|i1|r0,1,0")),
    CMD("persist", persistCommand, 2, W | F, K, 1, 1, 1, "Remove the expiration from a key", "2.2.0", "generic", KS("RW update|i1|r0,1,0")),
    /* transactions */
    CMD("eval", evalCommand, -3, NS | S | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS, ACL_CAT_SCRIPTING, 0, 0, 0, "Execute a Lua script server side", "2.6.0", "scripting", KS("RW access update|i2|n0,1,1|We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")),
    CMD("evalsha", evalShaCommand, -3, NS | S | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS, ACL_CAT_SCRIPTING, 0, 0, 0, "Execute a Lua script server side", "2.6.0", "scripting", KS("RW access update|i2|n0,1,1")),
    CMD("eval_ro", evalRoCommand, -3, R | NS | S | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS, ACL_CAT_SCRIPTING, 0, 0, 0, "Execute a read-only Lua script server side", "7.0.0", "scripting", KS("RO access|i2|n0,1,1|We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")),
    CMD("evalsha_ro", evalShaRoCommand, -3, R | NS | S | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS, ACL_CAT_SCRIPTING, 0, 0, 0, "Execute a read-only Lua script server side", "7.0.0", "scripting", KS("RO access|i2|n0,1,1")),
    CMD("fcall", fcallCommand, -3, NS | S | CMD_SKIP_MONITOR | CMD_MAY_REPLICATE | CMD_NO_MANDATORY_KEYS, ACL_CAT_SCRIPTING, 0, 0, 0, "Invoke a function", "7.0.0", "scripting", KS("RW access update|i2|n0,1,1|We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")),
    CMD("fcall_ro", fcallRoCommand, -3, R | NS | S | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS, ACL_CAT_SCRIPTING, 0, 0, 0, "Invoke a read-only function", "7.0.0", "scripting", KS("RO access|i2|n0,1,1|We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")),
    CMDS("function", -2, 0, 0, "A container for function commands", "7.0.0", "scripting", functionSubcommands),
    CMDS("script", -2, 0, 0, "A container for Lua scripts management commands", "2.6.0", "scripting", scriptSubcommands),
    CMD("multi", multiCommand, 1, NS | L | S | F | AB, ACL_CAT_TRANSACTION, 0, 0, 0, "Mark the start of a transaction block", "1.2.0", "transactions"),
    CMD("exec", execCommand, 1, NS | L | S | CMD_SKIP_SLOWLOG, ACL_CAT_TRANSACTION, 0, 0, 0, "Execute all commands issued after MULTI", "1.2.0", "transactions"),
    CMD("discard", discardCommand, 1, NS | L | S | F | AB, ACL_CAT_TRANSACTION, 0, 0, 0, "Discard all commands issued after MULTI", "2.0.0", "transactions"),
    CMD("watch", watchCommand, -2, NS | L | S | F | AB, ACL_CAT_TRANSACTION, 1, -1, 1, "Watch the given keys to determine execution of the MULTI/EXEC block", "2.2.0", "transactions", KS("RO|i1|r-1,1,0")),
    CMD("unwatch", unwatchCommand, 1, NS | L | S | F | AB, ACL_CAT_TRANSACTION, 0, 0, 0, "Forget about all watched keys", "2.2.0", "transactions"),
    /* pub/sub */
    CMD("subscribe", subscribeCommand, -2, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Listen for messages published to the given channels", "2.0.0", "pubsub"),
    CMD("unsubscribe", unsubscribeCommand, -1, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Stop listening for messages posted to the given channels", "2.0.0", "pubsub"),
    CMD("psubscribe", psubscribeCommand, -2, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Listen for messages published to channels matching the given patterns", "2.0.0", "pubsub"),
    CMD("punsubscribe", punsubscribeCommand, -1, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 0, 0, 0, "Stop listening for messages posted to channels matching the given patterns", "2.0.0", "pubsub"),
    CMD("ssubscribe", ssubscribeCommand, -2, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 1, -1, 1, "Listen for messages published to the given shard channels", "7.0.0", "pubsub", KS("not_key|i1|r-1,1,0")),
    CMD("sunsubscribe", sunsubscribeCommand, -1, CMD_PUBSUB | NS | L | S, ACL_CAT_PUBSUB, 1, -1, 1, "Stop listening for messages posted to the given shard channels", "7.0.0", "pubsub", KS("not_key|i1|r-1,1,0")),
    CMD("publish", publishCommand, 3, CMD_PUBSUB | L | S | F | CMD_MAY_REPLICATE, ACL_CAT_PUBSUB, 0, 0, 0, "Post a message to a channel", "2.0.0", "pubsub"),
    CMD("spublish", spublishCommand, 3, CMD_PUBSUB | L | S | F | CMD_MAY_REPLICATE, ACL_CAT_PUBSUB, 1, 1, 1, "Post a message to a shard channel", "7.0.0", "pubsub", KS("not_key|i1|r0,1,0")),
    CMDS("pubsub", -2, 0, 0, "A container for Pub/Sub commands", "2.8.0", "pubsub", pubsubSubcommands),
    /* connection */
    CMD("ping", pingCommand, -1, F | SE, CN, 0, 0, 0, "Ping the server", "1.0.0", "connection", TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("echo", echoCommand, 2, L | S | F, CN, 0, 0, 0, "Echo the given string", "1.0.0", "connection"),
    CMD("quit", quitCommand, -1, AB | NS | L | S | F | NA, CN, 0, 0, 0, "Close the connection", "1.0.0", "connection"),
    CMD("hello", helloCommand, -1, NS | L | S | F | NA | SE | AB, CN, 0, 0, 0, "Handshake with Redis", "6.0.0", "connection"),
    CMD("auth", authCommand, -2, NS | L | S | F | NA | SE | AB, CN, 0, 0, 0, "Authenticate to the server", "1.0.0", "connection"),
    CMD("reset", resetCommand, 1, NS | L | S | F | NA | AB, CN, 0, 0, 0, "Reset the connection", "6.2.0", "connection"),
    CMDS("client", -2, SE, 0, "A container for client connection commands", "2.4.0", "connection", clientSubcommands),
    /* server */
    /* The one container that runs on its own: a bare COMMAND lists the table. */
    CMDS("command", -1, L | S | SE, CN, "Get array of Redis command details", "2.8.13", "server", commandSubcommands, TIPS("nondeterministic_output_order"), .proc = commandCommand),
    CMDS("acl", -2, SE, 0, "A container for Access List Control commands ", "6.0.0", "server", aclSubcommands),
    CMDS("config", -2, 0, 0, "A container for server configuration commands", "2.0.0", "server", configSubcommands),
    CMD("info", infoCommand, -1, L | S | SE, ACL_CAT_DANGEROUS, 0, 0, 0, "Get information and statistics about the server", "1.0.0", "server", TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    CMD("time", timeCommand, 1, L | S | F, 0, 0, 0, 0, "Return the current server time", "2.6.0", "server", TIPS("nondeterministic_output")),
    CMD("debug", debugCommand, -2, A | NS | L | S | P, 0, 0, 0, 0, "A container for debugging commands", "1.0.0", "server"),
    CMDS("latency", -2, 0, 0, "A container for latency diagnostics commands", "2.8.13", "server", latencySubcommands),
    CMDS("slowlog", -2, 0, 0, "A container for slow log commands", "2.2.12", "server", slowlogSubcommands),
    CMD("shutdown", shutdownCommand, -1, A | NS | L | S | CMD_NO_MULTI | SE | AB, 0, 0, 0, 0, "Synchronously save the dataset to disk and then shut down the server", "1.0.0", "server"),
    CMD("monitor", monitorCommand, 1, A | NS | L | S, 0, 0, 0, 0, "Listen for all requests received by the server in real time", "1.0.0", "server"),
    CMD("waitaof", waitaofCommand, 4, NS, CN, 0, 0, 0, "Blocks until all of the preceding write commands sent by the connection are written to the append-only file of the master and/or replicas.", "7.2.0", "generic", TIPS("request_policy:all_shards response_policy:agg_min")),
    CMD("lastsave", lastsaveCommand, 1, L | S | F, ACL_CAT_ADMIN | ACL_CAT_DANGEROUS, 0, 0, 0, "Get the UNIX time stamp of the last successful save to disk", "1.0.0", "server", TIPS("nondeterministic_output")),
    CMD("save", saveCommand, 1, A | NS | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, ACL_CAT_ADMIN | ACL_CAT_SLOW | ACL_CAT_DANGEROUS, 0, 0, 0, "Synchronously save the dataset to disk", "1.0.0", "server"),
    CMD("bgrewriteaof", bgrewriteaofCommand, 1, A | NS | CMD_NO_ASYNC_LOADING, ACL_CAT_ADMIN | ACL_CAT_SLOW | ACL_CAT_DANGEROUS, 0, 0, 0, "Asynchronously rewrite the append-only file", "1.0.0", "server"),
    CMD("bgsave", bgsaveCommand, -1, A | NS | CMD_NO_ASYNC_LOADING, ACL_CAT_ADMIN | ACL_CAT_SLOW | ACL_CAT_DANGEROUS, 0, 0, 0, "Asynchronously save the dataset to disk", "1.0.0", "server"),
    CMDS("memory", -2, 0, 0, "A container for memory diagnostics commands", "4.0.0", "server", memorySubcommands),
    CMDS("module", -2, 0, 0, "A container for module commands", "4.0.0", "server", moduleSubcommands),
    CMD("lolwut", lolwutCommand, -1, R | F, 0, 0, 0, 0, "Display some computer art and the Redis version", "5.0.0", "server"),
    /* replication (replication/) */
    CMD("sync", syncCommand, 1, A | NS | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, 0, 0, 0, 0, "Internal command used for replication", "1.0.0", "server"),
    CMD("psync", syncCommand, -3, A | NS | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, 0, 0, 0, 0, "Internal command used for replication", "2.8.0", "server"),
    CMD("replconf", replconfCommand, -1, A | NS | L | S | AB, 0, 0, 0, 0, "An internal command for configuring the replication stream", "3.0.0", "server"),
    CMD("replicaof", replicaofCommand, 3, A | NS | S | CMD_NO_ASYNC_LOADING, 0, 0, 0, 0, "Make the server a replica of another instance, or promote it as master.", "5.0.0", "server"),
    CMD("failover", failoverCommand, -1, A | NS | S, 0, 0, 0, 0, "Start a coordinated failover between this server and one of its replicas.", "6.2.0", "server"),
    CMD("slaveof", replicaofCommand, 3, A | NS | S | CMD_NO_ASYNC_LOADING, 0, 0, 0, 0, "Make the server a replica of another instance, or promote it as master.", "1.0.0", "server"),
    CMD("role", roleCommand, 1, NS | L | S | F, ACL_CAT_ADMIN | ACL_CAT_DANGEROUS, 0, 0, 0, "Return the role of the instance in the context of replication", "2.8.12", "server"),
    CMD("wait", waitCommand, 3, NS, CN, 0, 0, 0, "Wait for the synchronous replication of all the write commands sent in the context of the current connection", "3.0.0", "generic", TIPS("request_policy:all_shards response_policy:agg_min")),
    /* cluster: standalone only, see clusterSubcommands */
    CMDS("cluster", -2, 0, 0, "A container for cluster commands", "3.0.0", "cluster", clusterSubcommands),
    CMD("readonly", clusterDisabledCommand, 1, L | S | F, CN, 0, 0, 0, "Enables read queries for a connection to a cluster replica node", "3.0.0", "cluster"),
    CMD("readwrite", clusterDisabledCommand, 1, L | S | F, CN, 0, 0, 0, "Disables read queries for a connection to a cluster replica node", "3.0.0", "cluster"),
    CMD("asking", clusterDisabledCommand, 1, F, CN, 0, 0, 0, "Sent by cluster clients after an -ASK redirect", "3.0.0", "cluster"),
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

static int command_ids;

void commandsInit(void) {
    server.commands = dictCreate(&commandTableDictType);
    server.commands_list = commandTable;
    int id = 0;
    for (cairnCommand *c = commandTable; c->name; c++) {
        c->fullname = sdsnew(c->name);
        c->id = id++;
        dictAdd(server.commands, sdsnew(c->name), c);
        commandInitKeys(c);
        for (cairnCommand *s = c->subcommands; s && s->name; s++) {
            s->parent = c;
            s->fullname = sdscatprintf(sdsempty(), "%s|%s", c->name, s->name);
            s->id = id++;
            commandInitKeys(s);
        }
    }
    command_ids = id;
}

int commandsIdCount(void) { return command_ids; }

/* rename-command: the command answers to its new name only ("" removes
 * it). Its own name (errors, COMMAND INFO) stays, as in Redis. Returns 0
 * with *err on a bad pair. */
int commandsApplyRenames(const char **err) {
    for (int j = 0; j + 1 < cfg.rename_command_len; j += 2) {
        sds from = sdsnew(cfg.rename_command[j]), to = sdsnew(cfg.rename_command[j + 1]);
        sdstolower(from);
        sdstolower(to);
        cairnCommand *cmd = dictFetchValue(server.commands, from);
        int ok = 1;
        if (!cmd) {
            *err = "No such command in rename-command";
            ok = 0;
        } else if (sdslen(to) && dictFind(server.commands, to)) {
            *err = "Target command name already exists";
            ok = 0;
        } else {
            dictDelete(server.commands, from);
            if (sdslen(to)) {
                dictAdd(server.commands, to, cmd);
                to = NULL; /* the dict owns it */
            }
        }
        sdsfree(from);
        sdsfree(to);
        if (!ok) return 0;
    }
    return 1;
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

/* A command refused before it ran: the error, and a transaction it was
 * queued into will fail. A refused EXEC ends its transaction (if any), as
 * in Redis, so a client pipelining MULTI ... EXEC is never left half inside
 * one. */
static void commandReject(client *c, const char *err) {
    if (c->cmd && c->cmd->proc == execCommand) {
        multiDiscard(c);
        replyErrorFormat(c, "EXECABORT Transaction discarded because of: %s", err);
        return;
    }
    replyError(c, err);
    multiFlagError(c);
}

/* A replica's link carries the stream, never replies (Redis' rule): a
 * command sent on it that answered (anything but the sync protocol's own
 * SYNC/PSYNC and REPLCONF) comes from a rogue replica, which is dropped
 * before the reply can mix into the stream. */
static void commandCheckReplicaReply(client *c, const cairnCommand *cmd) {
    if (cmd && (cmd->proc == syncCommand || cmd->proc == replconfCommand)) return;
    replyMark now;
    replyMarkGet(c, &now);
    if (now.bufpos == c->cmd_mark.bufpos && now.tail == c->cmd_mark.tail &&
        now.tail_used == c->cmd_mark.tail_used)
        return;
    replyRollback(c, &c->cmd_mark);
    sds info = clientInfoString(sdsempty(), c);
    serverLog(LL_WARNING, "Replica generated a reply to command '%s', disconnecting it: %s",
              c->lastcmd ? c->lastcmd->fullname : "<unknown>", info);
    sdsfree(info);
    clientFreeAsync(c);
}

int commandProcess(client *c) {
    const char *repl_err;
    int acl_res, acl_pos = 0;
    replyBegin(c); /* the one output check of this command */
    replyMarkGet(c, &c->cmd_mark);
    cairnCommand *cmd = commandLookup(c->argv, c->argc);
    c->cmd = c->realcmd = cmd;
    if (cmd) c->lastcmd = cmd;
    if (!cmd) {
        commandRejectUnknown(c);
        multiFlagError(c);
    } else if ((cmd->arity > 0 && cmd->arity != c->argc) || (c->argc < -cmd->arity) || !cmd->proc) {
        /* A container without its subcommand (no proc) is an arity error,
         * as in Redis, whatever arity its row declares. */
        cmd->rejected_calls++;
        if (cmd->proc == execCommand) {
            commandReject(c, "wrong number of arguments for 'exec' command");
        } else {
            replyErrorArity(c);
            multiFlagError(c);
        }
    } else if (!(c->flags & CLIENT_AUTHENTICATED) && !(cmd->flags & CMD_NO_AUTH) && aclAuthRequired(c)) {
        cmd->rejected_calls++;
        commandReject(c, "NOAUTH Authentication required.");
    } else if ((c->flags & CLIENT_PUBSUB) && c->resp == 2 && !commandAllowedInPubsub(cmd)) {
        cmd->rejected_calls++;
        replyErrorFormat(c, "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                            "QUIT / RESET are allowed in this context",
                         cmd->fullname);
        multiFlagError(c);
    } else if ((cmd->flags & CMD_PROTECTED) &&
               !configAllowProtectedAction(cmd->proc == moduleCommand ? cfg.enable_module_cmd
                                                                       : cfg.enable_debug_cmd,
                                           c)) {
        cmd->rejected_calls++;
        int mod = cmd->proc == moduleCommand;
        char msg[320];
        snprintf(msg, sizeof(msg),
                 "ERR %s command not allowed. If the %s option is set to \"local\", you can run it "
                 "from a local connection, otherwise you need to set this option in the "
                 "configuration file, and then restart the server.",
                 mod ? "MODULE" : "DEBUG", mod ? "enable-module-command" : "enable-debug-command");
        commandReject(c, msg);
    } else if ((c->flags & CLIENT_MULTI) && (cmd->flags & CMD_NO_MULTI)) {
        cmd->rejected_calls++;
        commandReject(c, "ERR Command not allowed inside a transaction");
    } else if ((acl_res = aclCheckCommand(c->user, cmd, c->argv, c->argc, &acl_pos)) != ACL_OK) {
        cmd->rejected_calls++;
        aclDeny(c, acl_res, acl_pos);
        multiFlagError(c);
    } else if (cfg.maxmemory_clients && clientsEvictBeforeCommand(c)) {
        /* maxmemory-clients evicted this very client (before any key, as
         * Redis): it is closing, its command does not run. */
    } else if (cfg.maxmemory && evictBeforeCommand(c, cmd)) {
        cmd->rejected_calls++;
        commandReject(c, EVICT_OOM_ERROR);
    } else if (!(c->flags & CLIENT_MASTER) && rdbWritesDenied() && ((cmd->flags & CMD_WRITE) || cmd->proc == pingCommand ||
                                     (cmd->proc == execCommand && multiQueueHasWrites(c)))) {
        cmd->rejected_calls++;
        commandReject(c, RDB_MISCONF_ERROR);
    } else if (!(c->flags & CLIENT_MASTER) && aofWritesDenied() && ((cmd->flags & CMD_WRITE) || cmd->proc == pingCommand ||
                                     (cmd->proc == execCommand && multiQueueHasWrites(c)))) {
        cmd->rejected_calls++;
        commandReject(c, aofWritesDenied());
    } else if ((repl_err = replCommandDenied(c, cmd)) != NULL) {
        cmd->rejected_calls++;
        commandReject(c, repl_err);
    } else if (server.loading && (server.async_loading ? (cmd->flags & CMD_NO_ASYNC_LOADING) != 0
                                                       : !(cmd->flags & CMD_LOADING))) {
        /* Only reachable while a snapshot or AOF load serves clients
         * (processEventsWhileBlocked). An async load serves the old dataset
         * to everything but what would disturb the load. */
        cmd->rejected_calls++;
        commandReject(c, "LOADING Redis is loading the dataset in memory");
    } else if (scriptIsBusy() && !(cmd->flags & CMD_ALLOW_BUSY)) {
        /* A long script yields to the event loop: only the way out runs. */
        cmd->rejected_calls++;
        commandReject(c, scriptBusyError());
    } else if ((c->flags & CLIENT_REPLICA) &&
               (cmd->flags & (CMD_WRITE | CMD_READONLY | CMD_MAY_REPLICATE))) {
        /* Replicas are exempt from CLIENT PAUSE: no keyspace access for them. */
        cmd->rejected_calls++;
        commandReject(c, "ERR Replica can't interact with the keyspace");
    } else if (clientsArePaused() && commandIsPaused(c)) {
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
    else if (c->flags & CLIENT_REPLICA) commandCheckReplicaReply(c, cmd);
    /* Invalidations this command caused for its own client follow its reply. */
    trackingHandlePending();
    /* Keys this command created may wake blocked clients, served right
     * after it so they see the state it left; not while a long script
     * yields (it would see the script half-way), its own command serves
     * them when it ends. */
    if (server.blocked_clients && !scriptIsBusy()) handleClientsBlockedOnKeys();
    return C_OK;
}

/* EVAL_RO and its kin are read-only, but what their scripts read decides
 * what a tracking client remembers. */
static int commandRunsReadOnlyScript(cairnCommand *cmd) {
    return cmd->proc == evalRoCommand || cmd->proc == evalShaRoCommand ||
           cmd->proc == fcallRoCommand;
}

/* Error replies made by commands run inside another one (EXEC's queue):
 * they count as the inner command's failure, not the outer one's. */
static long long nested_errors;

void commandCountScriptRefusal(cairnCommand *cmd, const char *err, size_t len) {
    if (cmd) cmd->rejected_calls++;
    if (len && err[0] == '-') {
        replyErrorCount(err + 1, len - 1);
    } else {
        sds e = sdscatlen(sdsnew("ERR "), err, len);
        replyErrorCount(e, sdslen(e));
        sdsfree(e);
    }
    nested_errors++;
}

void commandRunProc(client *c, cairnCommand *cmd) {
    c->cmd = c->realcmd = c->lastcmd = cmd;
    server.cmd_time_snapshot = mstime();
    server.current_client = c;
    c->flags |= CLIENT_EXECUTING_COMMAND;
    cmd->proc(c);
    c->flags &= ~CLIENT_EXECUTING_COMMAND;
    server.current_client = NULL;
}

void commandCall(client *c) {
    cairnCommand *cmd = c->cmd;
    long long dirty = server.dirty;
    long long errors = server.stat_total_error_replies;
    long long inner_errors = nested_errors;
    /* MONITOR shows the command as sent, after it ran (so a RESET or the
     * commands inside an EXEC come before it), and a re-executed blocked
     * command only once. "As sent" needs no copy made in advance: every
     * rewrite keeps the original argv itself (clientRewriteArg/Argv), and
     * holding extra references would stop SET & co. from storing integers
     * int-encoded (tryObjectEncoding leaves shared objects alone). */
    int feed = server.monitors && !(cmd->flags & (CMD_SKIP_MONITOR | CMD_ADMIN)) &&
               !(c->flags & CLIENT_REEXECUTING);
    /* EXEC runs its queue through here: each command keeps its own original. */
    robj **outer_argv = c->original_argv;
    int outer_argc = c->original_argc;
    c->original_argv = NULL;
    long long stream_before = streamOffset();
    long long start = ustime();
    /* A script's commands see the time it started, as in Redis: a key
     * does not expire half-way through it. */
    if (!(c->flags & CLIENT_SCRIPT)) server.cmd_time_snapshot = start / 1000;
    server.current_client = c;
    c->flags |= CLIENT_EXECUTING_COMMAND;
    cmd->proc(c);
    c->flags &= ~CLIENT_EXECUTING_COMMAND;
    long long duration = ustime() - start;
    dirty = server.dirty - dirty;
    c->commands_processed++;
    cmd->calls++;
    cmd->microseconds += duration;
    latencyAddSampleIfNeeded((cmd->flags & CMD_FAST) ? "fast-command" : "command", duration / 1000);
    if (!(c->flags & CLIENT_BLOCKED)) latencyRecordCommand(cmd, duration);
    long long call_errors = server.stat_total_error_replies - errors;
    if (call_errors - (nested_errors - inner_errors) > 0) cmd->failed_calls++;
    nested_errors = inner_errors + call_errors;
    if ((cmd->flags & CMD_READONLY) && !commandRunsReadOnlyScript(cmd)) {
        /* A read inside a script makes its caller remember all the keys
         * the script declared, as in Redis. */
        client *caller = (c->flags & CLIENT_SCRIPT) && scriptCaller() ? scriptCaller() : c;
        if ((caller->flags & CLIENT_TRACKING) && !(caller->flags & CLIENT_TRACKING_BCAST))
            trackingRememberKeys(caller);
    }
    server.stat_numcommands++;
    robj **argv = c->original_argv ? c->original_argv : c->argv;
    int argc = c->original_argv ? c->original_argc : c->argc;
    /* A command that blocked is logged when it is served. */
    if (cfg.slowlog_log_slower_than >= 0 && duration >= cfg.slowlog_log_slower_than &&
        !(cmd->flags & CMD_SKIP_SLOWLOG) && !(c->flags & CLIENT_BLOCKED))
        slowlogPush(c, argv, argc, duration);
    if (feed) monitorFeed(c, c->db, argv, argc);
    /* The one propagation path: a command that changed the dataset is
     * encoded once, as its (possibly rewritten) argv, into the stream. */
    if (dirty > 0 && (cmd->flags & CMD_WRITE)) propagateCommand(c);
    /* What WAITAOF waits for: the stream up to this client's last write
     * (an EXEC's closing marker included, as it is appended by EXEC). */
    if (streamOffset() != stream_before) c->woff = streamOffset();
    /* appendfsync always: this reply shows the keyspace as the stream has it
     * now. Scripts carry neither flag but read and write keys, so they are
     * held too (as is anything that appended to the stream). */
    if (aof_hold_active && ((cmd->flags & (CMD_WRITE | CMD_READONLY)) || (cmd->acl_categories & ACL_CAT_SCRIPTING) ||
                            streamOffset() != stream_before))
        aofNoteReply(c);
    clientFreeOriginalArgv(c);
    c->original_argv = outer_argv;
    c->original_argc = outer_argc;
}

void commandResetStats(void) {
    for (cairnCommand *c = commandTable; c->name; c++) {
        c->calls = c->microseconds = c->rejected_calls = c->failed_calls = 0;
        latencyResetCommand(c);
        for (cairnCommand *s = c->subcommands; s && s->name; s++) {
            s->calls = s->microseconds = s->rejected_calls = s->failed_calls = 0;
            latencyResetCommand(s);
        }
    }
}

/* ---- key specs and key extraction ---- */

enum { KSPEC_BS_UNKNOWN, KSPEC_BS_INDEX, KSPEC_BS_KEYWORD };
enum { KSPEC_FK_UNKNOWN, KSPEC_FK_RANGE, KSPEC_FK_KEYNUM };

typedef struct cmdKeySpec {
    unsigned flags;
    sds notes; /* NULL if none */
    int bs_type;
    int bs_index;     /* KSPEC_BS_INDEX */
    sds keyword;      /* KSPEC_BS_KEYWORD */
    int startfrom;    /* KSPEC_BS_KEYWORD: negative counts from the end */
    int fk_type;
    int fk_a, fk_b, fk_c; /* range: lastkey keystep limit; keynum: keynumidx firstkey keystep */
} cmdKeySpec;

static const struct {
    unsigned flag;
    const char *name;
} keyFlagNames[] = {/* Redis' order, which COMMAND INFO and GETKEYSANDFLAGS show */
                    {CMD_KEY_RO, "RO"},
                    {CMD_KEY_RW, "RW"},
                    {CMD_KEY_OW, "OW"},
                    {CMD_KEY_RM, "RM"},
                    {CMD_KEY_ACCESS, "access"},
                    {CMD_KEY_UPDATE, "update"},
                    {CMD_KEY_INSERT, "insert"},
                    {CMD_KEY_DELETE, "delete"},
                    {CMD_KEY_NOT_KEY, "not_key"},
                    {CMD_KEY_INCOMPLETE, "incomplete"},
                    {CMD_KEY_VARIABLE_FLAGS, "variable_flags"},
                    {0, NULL}};

/* The table is compiled in, so a malformed spec is a programming error:
 * start-up stops at once rather than serving wrong key positions. */
static void commandBadSpec(cairnCommand *cmd, const char *what) {
    fprintf(stderr, "command table: bad key spec for '%s': %s\n", cmd->fullname, what);
    abort();
}

static void commandParseKeySpecs(cairnCommand *cmd) {
    if (!cmd->keyspecs) return;
    int nspecs = 0;
    sds *specs = sdssplitlen(cmd->keyspecs, strlen(cmd->keyspecs), ";", 1, &nspecs);
    cmd->key_specs = zcalloc(sizeof(cmdKeySpec) * nspecs);
    cmd->key_specs_num = nspecs;
    for (int i = 0; i < nspecs; i++) {
        cmdKeySpec *ks = &cmd->key_specs[i];
        int nf = 0;
        sds *f = sdssplitlen(specs[i], sdslen(specs[i]), "|", 1, &nf);
        if (nf < 3 || nf > 4) commandBadSpec(cmd, specs[i]);
        int nflags = 0;
        sds *fl = sdssplitlen(f[0], sdslen(f[0]), " ", 1, &nflags);
        for (int j = 0; j < nflags; j++) {
            int k = 0;
            while (keyFlagNames[k].name && strcmp(keyFlagNames[k].name, fl[j])) k++;
            if (!keyFlagNames[k].name) commandBadSpec(cmd, fl[j]);
            ks->flags |= keyFlagNames[k].flag;
        }
        sdsfreesplitres(fl, nflags);
        if (f[1][0] == 'i') {
            ks->bs_type = KSPEC_BS_INDEX;
            ks->bs_index = atoi(f[1] + 1);
        } else if (f[1][0] == 'k') {
            char *comma = strchr(f[1], ',');
            if (!comma) commandBadSpec(cmd, f[1]);
            ks->bs_type = KSPEC_BS_KEYWORD;
            ks->keyword = sdsnewlen(f[1] + 1, comma - f[1] - 1);
            ks->startfrom = atoi(comma + 1);
        } else if (f[1][0] != 'u') {
            commandBadSpec(cmd, f[1]);
        }
        if (f[2][0] == 'r' || f[2][0] == 'n') {
            ks->fk_type = f[2][0] == 'r' ? KSPEC_FK_RANGE : KSPEC_FK_KEYNUM;
            if (sscanf(f[2] + 1, "%d,%d,%d", &ks->fk_a, &ks->fk_b, &ks->fk_c) != 3)
                commandBadSpec(cmd, f[2]);
        } else if (f[2][0] != 'u') {
            commandBadSpec(cmd, f[2]);
        }
        if (nf == 4) ks->notes = sdsdup(f[3]);
        sdsfreesplitres(f, nf);
    }
    sdsfreesplitres(specs, nspecs);
}

/* Redis marks a command "movablekeys" when the classic (first, last, step)
 * triple cannot name all its keys: a spec that is not index + range, an
 * incomplete one, or ranges that do not join into one plain run. */
static void commandSetMovableKeys(cairnCommand *cmd) {
    int n = cmd->key_specs_num;
    if (n == 0) return;
    cmdKeySpec *ks = cmd->key_specs;
    if (n == 1 && ks[0].bs_type == KSPEC_BS_INDEX && ks[0].fk_type == KSPEC_FK_RANGE) {
        if (ks[0].flags & CMD_KEY_INCOMPLETE) cmd->flags |= CMD_MOVABLE_KEYS;
        return;
    }
    int found = 0;
    unsigned prev_last = 0;
    for (int i = 0; i < n; i++) {
        if (ks[i].bs_type != KSPEC_BS_INDEX || ks[i].fk_type != KSPEC_FK_RANGE ||
            ks[i].fk_b != 1 || (prev_last && prev_last != (unsigned)ks[i].bs_index - 1)) {
            cmd->flags |= CMD_MOVABLE_KEYS;
            continue;
        }
        if (ks[i].flags & CMD_KEY_INCOMPLETE) cmd->flags |= CMD_MOVABLE_KEYS;
        found = 1;
        int last = ks[i].fk_a >= 0 ? ks[i].fk_a + ks[i].bs_index : ks[i].fk_a;
        /* unsigned, as Redis compares: a negative (from the end) wins */
        if ((unsigned)last > prev_last) prev_last = (unsigned)last;
    }
    if (!found) cmd->flags |= CMD_MOVABLE_KEYS;
}

static void commandInitKeys(cairnCommand *cmd) {
    commandParseKeySpecs(cmd);
    commandSetMovableKeys(cmd);
}

static unsigned commandAllSpecFlags(cairnCommand *cmd, int inverted) {
    unsigned all = 0;
    for (int i = 0; i < cmd->key_specs_num; i++)
        all |= inverted ? ~cmd->key_specs[i].flags : cmd->key_specs[i].flags;
    return all;
}

int commandHasKeys(cairnCommand *cmd) {
    return cmd->getkeys || (commandAllSpecFlags(cmd, 1) & CMD_KEY_NOT_KEY);
}

/* Walks the key specs over argv. -1 when a spec cannot be followed (unknown
 * type, incomplete, a bad or out of range key count): the caller then asks
 * the command's getkeys proc, as Redis does. */
static int commandKeysFromSpecs(cairnCommand *cmd, robj **argv, int argc, cmdKeyRef *keys) {
    int n = 0;
    for (int j = 0; j < cmd->key_specs_num; j++) {
        cmdKeySpec *ks = &cmd->key_specs[j];
        if (ks->flags & CMD_KEY_NOT_KEY) continue;
        int first = 0, last, step;
        if (ks->bs_type == KSPEC_BS_INDEX) {
            first = ks->bs_index;
        } else if (ks->bs_type == KSPEC_BS_KEYWORD) {
            int start = ks->startfrom > 0 ? ks->startfrom : argc + ks->startfrom;
            int end = ks->startfrom > 0 ? argc - 1 : 1;
            for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
                if (i >= argc || i < 1) break;
                if (!strcasecmp(argv[i]->ptr, ks->keyword)) {
                    first = i + 1;
                    break;
                }
            }
            if (!first) continue; /* keyword absent: no keys from this spec */
        } else {
            return -1;
        }
        if (ks->fk_type == KSPEC_FK_RANGE) {
            step = ks->fk_b;
            if (ks->fk_a >= 0) last = first + ks->fk_a;
            else if (!ks->fk_c) last = argc + ks->fk_a;
            else last = first + ((argc - first) / ks->fk_c + ks->fk_a);
        } else if (ks->fk_type == KSPEC_FK_KEYNUM) {
            step = ks->fk_c;
            long long numkeys;
            if (ks->fk_a >= argc || first + ks->fk_a >= argc) return -1;
            sds s = argv[first + ks->fk_a]->ptr;
            if (!string2ll(s, sdslen(s), &numkeys) || numkeys < 0 || numkeys > argc) return -1;
            first += ks->fk_b;
            last = first + (int)numkeys - 1;
        } else {
            return -1;
        }
        if (last >= argc || last < first || first >= argc) return -1;
        for (int i = first; i <= last && i < argc; i += step) {
            keys[n].pos = i;
            keys[n].flags = ks->flags;
            n++;
        }
        if (ks->flags & CMD_KEY_INCOMPLETE) return -1;
    }
    return n;
}

/* The keys argv names, with their flags; keys has room for argc entries.
 * Key specs first unless their flags depend on the arguments, then the
 * command's own getkeys proc. */
int commandKeyRefs(cairnCommand *cmd, robj **argv, int argc, cmdKeyRef *keys) {
    int has_spec = (commandAllSpecFlags(cmd, 1) & CMD_KEY_NOT_KEY) != 0;
    int varflags = (commandAllSpecFlags(cmd, 0) & CMD_KEY_VARIABLE_FLAGS) != 0;
    if (has_spec && !varflags) {
        int n = commandKeysFromSpecs(cmd, argv, argc, keys);
        if (n >= 0) return n;
    }
    return cmd->getkeys ? cmd->getkeys(argv, argc, keys) : 0;
}

int commandGetKeys(cairnCommand *cmd, robj **argv, int argc, int *keys, int max) {
    if (!commandHasKeys(cmd)) return 0;
    cmdKeyRef *refs = zmalloc(sizeof(*refs) * (argc + 1));
    int n = commandKeyRefs(cmd, argv, argc, refs);
    if (n > max) n = max;
    for (int j = 0; j < n; j++) keys[j] = refs[j].pos;
    zfree(refs);
    return n;
}

/* The fallbacks of the numkeys commands, used when their key spec cannot
 * be followed (a key count that is not a clean integer): Redis then reads
 * the count with atoi, so "2x" counts as 2, and returns no keys for a count
 * below 1 or beyond the arguments. The keys carry no flags, and a
 * destination comes after the sources, as in Redis. */
static int commandNumkeysGetKeys(robj **argv, int argc, cmdKeyRef *keys, int store, int countidx,
                                 int firstidx) {
    if (countidx >= argc) return 0;
    int num = atoi(argv[countidx]->ptr);
    if (num < 1 || num > argc - firstidx) return 0;
    for (int i = 0; i < num; i++) {
        keys[i].pos = firstidx + i;
        keys[i].flags = 0;
    }
    if (!store) return num;
    keys[num].pos = store;
    keys[num].flags = 0;
    return num + 1;
}

/* ZUNION ZINTER ZDIFF ZINTERCARD SINTERCARD LMPOP ZMPOP: numkeys key... */
static int commandNumkeysAt1GetKeys(robj **argv, int argc, cmdKeyRef *keys) {
    return commandNumkeysGetKeys(argv, argc, keys, 0, 1, 2);
}

/* BLMPOP BZMPOP: timeout numkeys key... */
static int commandNumkeysAt2GetKeys(robj **argv, int argc, cmdKeyRef *keys) {
    return commandNumkeysGetKeys(argv, argc, keys, 0, 2, 3);
}

/* ZUNIONSTORE ZINTERSTORE ZDIFFSTORE: destination numkeys key... */
static int commandStoreNumkeysGetKeys(robj **argv, int argc, cmdKeyRef *keys) {
    return commandNumkeysGetKeys(argv, argc, keys, 1, 2, 3);
}

/* SET k v ... GET reads the old value; without GET the key is overwritten. */
static int commandSetGetKeys(robj **argv, int argc, cmdKeyRef *keys) {
    keys[0].pos = 1;
    keys[0].flags = CMD_KEY_OW | CMD_KEY_UPDATE;
    for (int i = 3; i < argc; i++)
        if (!strcasecmp(argv[i]->ptr, "get")) {
            keys[0].flags = CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_UPDATE;
            break;
        }
    return 1;
}

/* BITFIELD with only GET (and OVERFLOW) reads; anything else may write,
 * including a malformed argument list. */
static int commandBitfieldGetKeys(robj **argv, int argc, cmdKeyRef *keys) {
    int readonly = 1;
    for (int i = 2; i < argc; i++) {
        int rest = argc - i - 1;
        const char *arg = argv[i]->ptr;
        if (!strcasecmp(arg, "get") && rest >= 2) {
            i += 2;
        } else if ((!strcasecmp(arg, "set") || !strcasecmp(arg, "incrby")) && rest >= 3) {
            readonly = 0;
            break;
        } else if (!strcasecmp(arg, "overflow") && rest >= 1) {
            i += 1;
        } else {
            readonly = 0;
            break;
        }
    }
    keys[0].pos = 1;
    keys[0].flags = readonly ? (CMD_KEY_RO | CMD_KEY_ACCESS)
                             : (CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_UPDATE);
    return 1;
}

/* ---- COMMAND ---- */

static const struct {
    uint64_t flag;
    const char *name;
} commandFlagNames[] = {
    /* Redis' order; may_replicate, sentinel and protected stay hidden as there */
    {CMD_WRITE, "write"},       {CMD_READONLY, "readonly"},   {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"},       {CMD_PUBSUB, "pubsub"},       {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"}, {CMD_LOADING, "loading"},     {CMD_STALE, "stale"},
    {CMD_SKIP_MONITOR, "skip_monitor"}, {CMD_SKIP_SLOWLOG, "skip_slowlog"}, {CMD_FAST, "fast"},
    {CMD_NO_AUTH, "no_auth"},   {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"},
    {CMD_NO_ASYNC_LOADING, "no_async_loading"}, {CMD_NO_MULTI, "no_multi"},
    {CMD_MOVABLE_KEYS, "movablekeys"}, {CMD_ALLOW_BUSY, "allow_busy"}, {0, NULL}};

uint64_t commandAclCategories(cairnCommand *c) {
    uint64_t cats = c->acl_categories;
    if (c->flags & CMD_WRITE) cats |= ACL_CAT_WRITE;
    /* Scripting commands stay out of @read, as in Redis. */
    if ((c->flags & CMD_READONLY) && !(cats & ACL_CAT_SCRIPTING)) cats |= ACL_CAT_READ;
    if (c->flags & CMD_ADMIN) cats |= ACL_CAT_ADMIN | ACL_CAT_DANGEROUS;
    if (c->flags & CMD_PUBSUB) cats |= ACL_CAT_PUBSUB;
    if (c->flags & CMD_BLOCKING) cats |= ACL_CAT_BLOCKING;
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

static const struct {
    uint64_t cat;
    const char *name;
} aclCatNames[] = {/* Redis' order, which COMMAND INFO shows */
                   {ACL_CAT_KEYSPACE, "keyspace"}, {ACL_CAT_READ, "read"}, {ACL_CAT_WRITE, "write"},
                   {ACL_CAT_SET, "set"},           {ACL_CAT_SORTEDSET, "sortedset"},
                   {ACL_CAT_LIST, "list"},         {ACL_CAT_HASH, "hash"},
                   {ACL_CAT_STRING, "string"},     {ACL_CAT_BITMAP, "bitmap"},
                   {ACL_CAT_HYPERLOGLOG, "hyperloglog"}, {ACL_CAT_GEO, "geo"},
                   {ACL_CAT_STREAM, "stream"},     {ACL_CAT_PUBSUB, "pubsub"},
                   {ACL_CAT_ADMIN, "admin"},       {ACL_CAT_FAST, "fast"},
                   {ACL_CAT_SLOW, "slow"},         {ACL_CAT_BLOCKING, "blocking"},
                   {ACL_CAT_DANGEROUS, "dangerous"}, {ACL_CAT_CONNECTION, "connection"},
                   {ACL_CAT_TRANSACTION, "transaction"}, {ACL_CAT_SCRIPTING, "scripting"},
                   {0, NULL}};

int commandAclCategoryAt(int j, uint64_t *flag, const char **name) {
    if (j < 0 || j >= (int)(sizeof(aclCatNames) / sizeof(aclCatNames[0])) - 1) return 0;
    *flag = aclCatNames[j].cat;
    *name = aclCatNames[j].name;
    return 1;
}

static void commandReplyAcl(client *c, cairnCommand *cmd) {
    uint64_t cats = commandAclCategories(cmd);
    int n = 0;
    for (int j = 0; aclCatNames[j].name; j++)
        if (cats & aclCatNames[j].cat) n++;
    replySetLen(c, n);
    for (int j = 0; aclCatNames[j].name; j++)
        if (cats & aclCatNames[j].cat) {
            char buf[32];
            int len = snprintf(buf, sizeof(buf), "@%s", aclCatNames[j].name);
            replyStatus(c, buf, len);
        }
}

static void commandReplyKeyFlags(client *c, unsigned flags) {
    int n = 0;
    for (int j = 0; keyFlagNames[j].name; j++)
        if (flags & keyFlagNames[j].flag) n++;
    replySetLen(c, n);
    for (int j = 0; keyFlagNames[j].name; j++)
        if (flags & keyFlagNames[j].flag) replyStatusC(c, keyFlagNames[j].name);
}

static void commandReplyTips(client *c, cairnCommand *cmd) {
    int n = 0;
    sds *tips = cmd->tips ? sdssplitlen(cmd->tips, strlen(cmd->tips), " ", 1, &n) : NULL;
    replySetLen(c, n);
    for (int j = 0; j < n; j++) replyBulkBuf(c, tips[j], sdslen(tips[j]));
    if (tips) sdsfreesplitres(tips, n);
}

static void commandReplyKeySpecs(client *c, cairnCommand *cmd) {
    replySetLen(c, cmd->key_specs_num);
    for (int i = 0; i < cmd->key_specs_num; i++) {
        cmdKeySpec *ks = &cmd->key_specs[i];
        replyMapLen(c, ks->notes ? 4 : 3);
        if (ks->notes) {
            replyBulkCString(c, "notes");
            replyBulkBuf(c, ks->notes, sdslen(ks->notes));
        }
        replyBulkCString(c, "flags");
        commandReplyKeyFlags(c, ks->flags);
        replyBulkCString(c, "begin_search");
        replyMapLen(c, 2);
        replyBulkCString(c, "type");
        if (ks->bs_type == KSPEC_BS_INDEX) {
            replyBulkCString(c, "index");
            replyBulkCString(c, "spec");
            replyMapLen(c, 1);
            replyBulkCString(c, "index");
            replyLongLong(c, ks->bs_index);
        } else if (ks->bs_type == KSPEC_BS_KEYWORD) {
            replyBulkCString(c, "keyword");
            replyBulkCString(c, "spec");
            replyMapLen(c, 2);
            replyBulkCString(c, "keyword");
            replyBulkBuf(c, ks->keyword, sdslen(ks->keyword));
            replyBulkCString(c, "startfrom");
            replyLongLong(c, ks->startfrom);
        } else {
            replyBulkCString(c, "unknown");
            replyBulkCString(c, "spec");
            replyMapLen(c, 0);
        }
        replyBulkCString(c, "find_keys");
        replyMapLen(c, 2);
        replyBulkCString(c, "type");
        if (ks->fk_type == KSPEC_FK_UNKNOWN) {
            replyBulkCString(c, "unknown");
            replyBulkCString(c, "spec");
            replyMapLen(c, 0);
            continue;
        }
        int range = ks->fk_type == KSPEC_FK_RANGE;
        replyBulkCString(c, range ? "range" : "keynum");
        replyBulkCString(c, "spec");
        replyMapLen(c, 3);
        replyBulkCString(c, range ? "lastkey" : "keynumidx");
        replyLongLong(c, ks->fk_a);
        replyBulkCString(c, range ? "keystep" : "firstkey");
        replyLongLong(c, ks->fk_b);
        replyBulkCString(c, range ? "limit" : "keystep");
        replyLongLong(c, ks->fk_c);
    }
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
    commandReplyTips(c, cmd);
    commandReplyKeySpecs(c, cmd);
    if (cmd->subcommands) {
        int n = 0;
        while (cmd->subcommands[n].name) n++;
        replyArrayLen(c, n);
        for (int j = 0; j < n; j++) commandReplyInfo(c, &cmd->subcommands[j]);
    } else {
        replySetLen(c, 0); /* Redis' type for "no subcommands" */
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
        uint64_t cat = 0;
        if (c->argc == 5) {
            if (!argEq(c->argv[2], "filterby")) {
                replyErrorSyntax(c);
                return;
            }
            if (argEq(c->argv[3], "module")) {
                replyArrayLen(c, 0); /* no modules */
                return;
            } else if (argEq(c->argv[3], "aclcat")) {
                for (int j = 0; aclCatNames[j].name; j++)
                    if (!strcasecmp(aclCatNames[j].name, c->argv[4]->ptr)) cat = aclCatNames[j].cat;
                if (!cat) {
                    /* unknown here, or a category with no cairn command */
                    replyArrayLen(c, 0);
                    return;
                }
            } else if (argEq(c->argv[3], "pattern")) {
                pattern = c->argv[4];
            } else {
                replyErrorSyntax(c);
                return;
            }
        }
        void *dl = replyDeferredLen(c);
        long n = 0;
        for (cairnCommand *cmd = commandTable; cmd->name; cmd++) {
            for (cairnCommand *s = cmd; s && s->name; s = (s == cmd) ? cmd->subcommands : s + 1) {
                if (pattern && !stringmatch(pattern->ptr, s->fullname, 1)) continue;
                if (cat && !(commandAclCategories(s) & cat)) continue;
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
        if (!commandHasKeys(cmd)) {
            replyError(c, "ERR The command has no key arguments");
            return;
        }
        if ((cmd->arity > 0 && cmd->arity != c->argc - 2) || (c->argc - 2 < -cmd->arity)) {
            replyError(c, "ERR Invalid number of arguments specified for command");
            return;
        }
        cmdKeyRef *keys = zmalloc(sizeof(*keys) * c->argc);
        int n = commandKeyRefs(cmd, c->argv + 2, c->argc - 2, keys);
        if (n == 0 && !(cmd->flags & CMD_NO_MANDATORY_KEYS)) {
            replyError(c, "ERR Invalid arguments specified for command");
        } else {
            replyArrayLen(c, n);
            for (int j = 0; j < n; j++) {
                if (withflags) {
                    replyArrayLen(c, 2);
                    replyBulk(c, c->argv[2 + keys[j].pos]);
                    commandReplyKeyFlags(c, keys[j].flags);
                } else {
                    replyBulk(c, c->argv[2 + keys[j].pos]);
                }
            }
        }
        zfree(keys);
    } else {
        replyErrorSubcommand(c);
    }
}
