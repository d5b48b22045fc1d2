/* digest: DEBUG DIGEST / DEBUG DIGEST-VALUE, Redis' SHA1 dataset and value
 * fingerprints (digest.c). */
#ifndef CAIRN_DIGEST_H
#define CAIRN_DIGEST_H

struct client;

/* argv: DEBUG DIGEST, or DEBUG DIGEST-VALUE key [key ...]. */
void digestCommand(struct client *c);

#endif
