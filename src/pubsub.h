/* pubsub: channels, patterns, shard channels and their commands (pubsub.c);
 * keyspace notifications are delivered through pubsubPublish. */
#ifndef CAIRN_PUBSUB_H
#define CAIRN_PUBSUB_H
#include "object.h"

typedef struct client client;

long long pubsubPublish(robj *channel, robj *msg);
void pubsubUnsubscribeAllClient(client *c, int notify);
unsigned long pubsubClientSubscriptions(client *c);
unsigned long pubsubTotalChannels(void);
unsigned long pubsubTotalPatterns(void);
unsigned long pubsubTotalShardChannels(void);
void subscribeCommand(client *c);
void unsubscribeCommand(client *c);
void psubscribeCommand(client *c);
void punsubscribeCommand(client *c);
void ssubscribeCommand(client *c);
void sunsubscribeCommand(client *c);
void publishCommand(client *c);
void spublishCommand(client *c);
void pubsubCommand(client *c);

#endif
