/* waitaof: WAITAOF (Redis 7.2), waiting until a client's writes are
 * fsynced in the local AOF and on replicas. commands.c runs the command,
 * main.c's beforeSleep calls waitaofBeforeSleep to answer waiters whose
 * condition holds; replication/ counts the replicas' fsynced offsets. */
#ifndef CAIRN_WAITAOF_H
#define CAIRN_WAITAOF_H

struct client;

void waitaofCommand(struct client *c);
/* Answer the WAITAOF waiters whose offsets are now fsynced. */
void waitaofBeforeSleep(void);
/* Replicas whose AOF has fsynced stream offset `offset` (their REPLCONF
 * ACK ... FACK, Redis 7.2's). */
long long waitaofReplicaAcks(long long offset);

#endif
