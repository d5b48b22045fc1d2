/* waitaof: WAITAOF (Redis 7.2), waiting until a client's writes are
 * fsynced in the local AOF and on replicas. commands.c runs the command,
 * main.c's beforeSleep calls waitaofBeforeSleep to answer waiters whose
 * condition holds; replication will implement waitaofReplicaAcks. */
#ifndef CAIRN_WAITAOF_H
#define CAIRN_WAITAOF_H

struct client;

void waitaofCommand(struct client *c);
/* Answer the WAITAOF waiters whose offsets are now fsynced. */
void waitaofBeforeSleep(void);
/* Replicas whose AOF has fsynced stream offset `offset` (0 until replicas
 * report fsynced offsets, Redis 7.2's REPLCONF ACK ... FACK). */
long long waitaofReplicaAcks(long long offset);

#endif
