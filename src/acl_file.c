/* acl_file: users from outside the server: the `user` directive lines of
 * the configuration file and the aclfile (ACL LOAD / ACL SAVE, and at
 * start-up), in Redis 7.0's format: one "user <name> <rules...>" per line.
 *
 * `user` lines are kept here as read (this file owns the copies) until
 * aclLoadAtStartup creates the users, after the command table exists.
 * Loading a file builds a complete new user table first; any error leaves
 * the current users as they were. Saving writes a temporary file in the
 * same directory and renames it over the old one. */
#include "acl.h"
#include "config.h"
#include "log.h"
#include "sds.h"
#include "zmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static sds **config_users; /* each a NULL-terminated argv: name, rules... */
static int nconfig_users;

/* A config `user` line is kept as given; its rules are applied (and any
 * error stops start-up with its reason) once the command table exists. */
int aclUserDirective(sds *argv, int argc, const char **err) {
    if (argc < 1) {
        *err = "wrong number of arguments";
        return 0;
    }
    if (!aclUsernameValid(argv[0], sdslen(argv[0]))) {
        *err = "Usernames can't contain spaces or null characters";
        return 0;
    }
    /* As Redis, while reading the file: a name may be declared once,
     * "default" included. */
    for (int i = 0; i < nconfig_users; i++) {
        if (!sdscmp(config_users[i][0], argv[0])) {
            static char buf[256];
            snprintf(buf, sizeof(buf), "Error in user declaration '%.64s': %s", argv[0],
                     aclSetUserErrorString(EALREADY));
            *err = buf;
            return 0;
        }
    }
    sds *line = zmalloc(sizeof(sds) * (argc + 1));
    for (int j = 0; j < argc; j++) line[j] = sdsdup(argv[j]);
    line[argc] = NULL;
    config_users = zrealloc(config_users, sizeof(sds *) * (nconfig_users + 1));
    config_users[nconfig_users++] = line;
    return 1;
}

static int aclLoadConfigUsers(sds *err) {
    for (int i = 0; i < nconfig_users; i++) {
        sds *line = config_users[i];
        aclUser *u = aclLookupUser(line[0], sdslen(line[0]));
        if (u && !strcmp(line[0], "default")) {
            aclSetUser(u, "reset", -1);
        } else if (u) {
            *err = sdscatprintf(sdsempty(), "Error in user declaration '%s': %s", line[0],
                                aclSetUserErrorString(EALREADY));
            return 0;
        } else {
            u = aclCreateUser(line[0], sdslen(line[0]));
        }
        int argc = 0;
        while (line[argc + 1]) argc++;
        sds *merged, perr = NULL;
        int mc;
        if (aclMergeSelectorArgs(line + 1, argc, &merged, &mc, &perr) == -1) {
            *err = perr;
            return 0;
        }
        for (int j = 0; j < mc; j++) {
            if (aclSetUser(u, merged[j], sdslen(merged[j])) == -1) {
                *err = sdscatprintf(sdsempty(), "Error in user declaration '%s': %s", merged[j],
                                    aclSetUserErrorString(errno));
                sdsfreesplitres(merged, mc);
                return 0;
            }
        }
        sdsfreesplitres(merged, mc);
    }
    return 1;
}

/* Builds the users of a file into a fresh table: NULL and *out filled, or
 * the errors, Redis' way: every problem, with file and line. */
static sds aclParseFile(const char *path, aclUser ***out, int *nout) {
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sdscatprintf(sdsempty(), "Error loading ACLs, opening file '%s': %s", path,
                            strerror(errno));
    sds content = sdsempty();
    char buf[4096];
    size_t nr;
    while ((nr = fread(buf, 1, sizeof(buf), fp)) > 0) content = sdscatlen(content, buf, nr);
    fclose(fp);
    int nlines = 0;
    sds *lines = sdssplitlen(content, sdslen(content), "\n", 1, &nlines);
    sdsfree(content);
    sds errors = sdsempty();
    aclUser **list = NULL;
    int n = 0;
    for (int i = 0; i < nlines; i++) {
        int linenum = i + 1;
        lines[i] = sdstrim(lines[i], " \t\r\n");
        if (!sdslen(lines[i])) continue;
        int argc = 0;
        sds *argv = sdssplitlen(lines[i], sdslen(lines[i]), " ", 1, &argc);
        if (argc < 2 || strcmp(argv[0], "user")) {
            errors = sdscatprintf(errors,
                                  "%s:%d should start with user keyword followed by the username. ",
                                  path, linenum);
            sdsfreesplitres(argv, argc);
            continue;
        }
        int dup = 0;
        for (int j = 0; j < n && !dup; j++) dup = !sdscmp(list[j]->name, argv[1]);
        if (dup) {
            errors = sdscatprintf(errors, "WARNING: Duplicate user '%s' found on line %d. ",
                                  argv[1], linenum);
            sdsfreesplitres(argv, argc);
            continue;
        }
        aclUser *u = aclCreateUnlinkedUser();
        sdsfree(u->name);
        u->name = sdsdup(argv[1]);
        list = zrealloc(list, sizeof(aclUser *) * (n + 1));
        /* keep the table sorted as the live one is */
        int pos = n;
        while (pos > 0 && sdscmp(list[pos - 1]->name, u->name) > 0) {
            list[pos] = list[pos - 1];
            pos--;
        }
        list[pos] = u;
        n++;
        sds *merged;
        int mc;
        sds perr = NULL;
        if (aclMergeSelectorArgs(argv + 2, argc - 2, &merged, &mc, &perr) == -1) {
            errors = sdscatprintf(errors, "%s:%d: Unmatched parenthesis in selector definition.",
                                  path, linenum);
            sdsfree(perr);
            sdsfreesplitres(argv, argc);
            continue;
        }
        int syntax_error = 0;
        for (int j = 0; j < mc; j++) {
            if (aclSetUser(u, merged[j], sdslen(merged[j])) == 0) continue;
            const char *msg = aclSetUserErrorString(errno);
            if (errno == ENOENT) {
                errors = sdscatprintf(errors, "%s:%d: Error in applying operation '%s': %s. ", path,
                                      linenum, merged[j], msg);
            } else if (!syntax_error) {
                errors = sdscatprintf(errors, "%s:%d: %s. ", path, linenum, msg);
                syntax_error = 1;
            }
        }
        sdsfreesplitres(merged, mc);
        sdsfreesplitres(argv, argc);
    }
    sdsfreesplitres(lines, nlines);
    if (sdslen(errors)) {
        for (int j = 0; j < n; j++) aclFreeUser(list[j]);
        zfree(list);
        errors =
            sdscat(errors, "WARNING: ACL errors detected, no change to the previously active ACL "
                           "rules was performed");
        return errors;
    }
    sdsfree(errors);
    *out = list;
    *nout = n;
    return NULL;
}

sds aclLoadFile(const char *path) {
    aclUser **list = NULL;
    int n = 0;
    sds err = aclParseFile(path, &list, &n);
    if (err) return err;
    aclReplaceUsers(list, n);
    return NULL;
}

sds aclSaveFile(const char *path) {
    sds content = sdsempty();
    int n;
    aclUser **us = aclUsers(&n);
    for (int j = 0; j < n; j++) {
        sds d = aclDescribeUser(us[j]);
        content = sdscatprintf(content, "user %s %s\n", us[j]->name, d);
        sdsfree(d);
    }
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    sds err = NULL;
    if (fd == -1) {
        err = sdscatprintf(sdsempty(), "Opening temp ACL file for ACL SAVE: %s", strerror(errno));
    } else {
        size_t off = 0;
        while (off < sdslen(content)) {
            ssize_t w = write(fd, content + off, sdslen(content) - off);
            if (w <= 0) {
                err =
                    sdscatprintf(sdsempty(), "Writing ACL file for ACL SAVE: %s", strerror(errno));
                break;
            }
            off += (size_t)w;
        }
        if (!err && fsync(fd) == -1)
            err = sdscatprintf(sdsempty(), "Syncing ACL file for ACL SAVE: %s", strerror(errno));
        close(fd);
        if (!err && rename(tmp, path) == -1)
            err = sdscatprintf(sdsempty(), "Renaming ACL file for ACL SAVE: %s", strerror(errno));
        if (err) unlink(tmp);
    }
    if (err) {
        serverLog(LL_WARNING, "%s", err);
        sdsfree(err);
        err = sdsnew("There was an error trying to save the ACLs. Please check the server logs for "
                     "more information");
    }
    sdsfree(tmp);
    sdsfree(content);
    return err;
}

int aclLoadAtStartup(sds *err) {
    int has_file = cfg.acl_filename && cfg.acl_filename[0];
    if (has_file && nconfig_users) {
        *err =
            sdsnew("Configuring Redis with users defined in redis.conf and at the same setting an "
                   "ACL file path is invalid. This setup is very likely to lead to configuration "
                   "errors and security holes, please define either an ACL file or declare users "
                   "directly in your redis.conf, but not both.");
        return 0;
    }
    if (!aclLoadConfigUsers(err)) return 0;
    if (has_file) {
        sds e = aclLoadFile(cfg.acl_filename);
        if (e) {
            *err = e;
            return 0;
        }
    }
    return 1;
}
