/* migrate: the MIGRATE command (migrate.c), which moves keys to another
 * server as DUMP payloads sent in RESTORE commands over a cached, blocking
 * connection.
 *
 * MIGRATE_COMMANDS expands to its row of the single command table in
 * commands.c (the CMD(...) format and short flag names defined there);
 * flags, key specs, categories and texts are those COMMAND INFO / COMMAND
 * DOCS show on Redis 7.0.15. */
#ifndef CAIRN_MIGRATE_H
#define CAIRN_MIGRATE_H

struct client;
struct robj;
struct cmdKeyRef;

void migrateCommand(struct client *c);
/* COMMAND GETKEYS: the key argument, or the keys after KEYS. */
int migrateGetKeys(struct robj **argv, int argc, struct cmdKeyRef *keys);
/* Close connections unused for 10 seconds (from the server cron). */
void migrateCron(void);
/* INFO stats migrate_cached_sockets. */
int migrateCachedSockets(void);

#define MIGRATE_COMMANDS                                                                           \
    CMD("migrate", migrateCommand, -6, W, K | ACL_CAT_DANGEROUS, 3, 3, 1,                          \
        "Atomically transfer a key from a Redis instance to another one.", "2.6.0", "generic",     \
        KS("RW access delete|i3|r0,1,0;RW access delete incomplete|kKEYS,-2|r-1,1,0"),             \
        TIPS("nondeterministic_output"), GETKEYS(migrateGetKeys)),

#endif
