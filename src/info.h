/* info: INFO's text (info.c) and the error statistics (INFO errorstats)
 * every error reply counts into. */
#ifndef CAIRN_INFO_H
#define CAIRN_INFO_H
#include "dict.h"
#include "sds.h"

#include <stddef.h>

sds infoGenerate(sds info, const char *section, int all, int everything);
void errorStatIncr(const char *err, size_t len);
void errorStatsReset(void);
extern dictType errorsDictType;

#endif
