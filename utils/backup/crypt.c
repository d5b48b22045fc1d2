/* crypt: --encrypt-key FILE, snapshots and segments encrypted at rest.
 *
 * The key file holds 32 bytes, raw or as 64 hex digits. An encrypted file
 * is "CAIRN-BACKUP-GCM" (16 bytes), a random 12-byte nonce, the
 * AES-256-GCM ciphertext of the whole plain file (a zstd frame), and the
 * 16-byte tag; encryption and decryption stream 64 KB at a time through
 * OpenSSL's EVP. Manifests and metas stay plain (their hashes cover the
 * encrypted bytes) and name the key by its id, the first 16 hex digits of
 * SHA-256("cairn-backup key id" + key), so a wrong key is told apart from
 * a damaged file before anything is decrypted. Readers get a decrypted
 * temporary copy (backupPlainFile) that they delete when done. */
#include "backup.h"

#include <errno.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CRYPT_MAGIC "CAIRN-BACKUP-GCM"
#define CRYPT_NONCE 12
#define CRYPT_TAG   16

static unsigned char crypt_key[32];
static char crypt_id[17];

const char *cryptKeyId(void) {
    return crypt_id[0] ? crypt_id : NULL;
}

int cryptLoadKey(const char *path, sds *err) {
    sds text = repoReadFile(path, err);
    if (!text) {
        sds e = sdscatprintf(sdsempty(), "--encrypt-key %s: %s", path, *err);
        sdsfree(*err);
        *err = e;
        return -1;
    }
    sds t = sdsdup(text);
    sdstrim(t, " \r\n\t");
    int ok = 0;
    if (sdslen(t) == 64 && strspn(t, "0123456789abcdefABCDEF") == 64) {
        for (int j = 0; j < 32; j++) {
            unsigned int b;
            sscanf(t + j * 2, "%2x", &b);
            crypt_key[j] = (unsigned char)b;
        }
        ok = 1;
    } else if (sdslen(text) == 32) {
        memcpy(crypt_key, text, 32);
        ok = 1;
    }
    sdsfree(t);
    sdsfree(text);
    if (!ok) {
        *err = sdscatprintf(sdsempty(), "--encrypt-key %s: not 32 bytes nor 64 hex digits", path);
        return -1;
    }
    char hex[65];
    unsigned char buf[19 + 32];
    memcpy(buf, "cairn-backup key id", 19);
    memcpy(buf + 19, crypt_key, 32);
    shaOf(buf, sizeof(buf), hex);
    memcpy(crypt_id, hex, 16);
    crypt_id[16] = '\0';
    return 0;
}

/* in -> out through the cipher; enc 1 encrypts. 0 or -1 with *err. */
static int cryptRun(const char *in, const char *out, int enc, sds *err) {
    FILE *fi = fopen(in, "r"), *fo = fi ? fopen(out, "w") : NULL;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    static unsigned char buf[65536], obuf[65536 + 32];
    unsigned char nonce[CRYPT_NONCE], tag[CRYPT_TAG];
    int ret = -1, n;
    if (!fi || !fo) {
        *err = sdscatprintf(sdsempty(), "%s: %s", fi ? out : in, strerror(errno));
        goto done;
    }
    long long size = 0;
    if (!enc) {
        fseek(fi, 0, SEEK_END);
        size = ftell(fi);
        fseek(fi, 0, SEEK_SET);
        char magic[16];
        if (size < 16 + CRYPT_NONCE + CRYPT_TAG || fread(magic, 1, 16, fi) != 16 ||
            memcmp(magic, CRYPT_MAGIC, 16) || fread(nonce, 1, CRYPT_NONCE, fi) != CRYPT_NONCE) {
            *err = sdscatprintf(sdsempty(), "%s: not an encrypted cairn-backup file", in);
            goto done;
        }
        size -= 16 + CRYPT_NONCE + CRYPT_TAG; /* the ciphertext */
    } else {
        RAND_bytes(nonce, CRYPT_NONCE);
        fwrite(CRYPT_MAGIC, 1, 16, fo);
        fwrite(nonce, 1, CRYPT_NONCE, fo);
    }
    if (!EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, crypt_key, nonce, enc)) goto cipherfail;
    long long left = size;
    while (1) {
        size_t want = sizeof(buf);
        if (!enc && (long long)want > left) want = (size_t)left;
        size_t got = want ? fread(buf, 1, want, fi) : 0;
        if (!got) break;
        left -= (long long)got;
        if (!EVP_CipherUpdate(ctx, obuf, &n, buf, (int)got)) goto cipherfail;
        if (fwrite(obuf, 1, (size_t)n, fo) != (size_t)n) goto iofail;
    }
    if (enc) {
        if (!EVP_CipherFinal_ex(ctx, obuf, &n) ||
            !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, CRYPT_TAG, tag))
            goto cipherfail;
        if (fwrite(tag, 1, CRYPT_TAG, fo) != CRYPT_TAG) goto iofail;
    } else {
        if (left || fread(tag, 1, CRYPT_TAG, fi) != CRYPT_TAG) goto iofail;
        if (!EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, CRYPT_TAG, tag) ||
            !EVP_CipherFinal_ex(ctx, obuf, &n)) {
            *err = sdscatprintf(
                sdsempty(),
                "%s: decryption failed (the file was changed, or another key with the same id)",
                in);
            goto done;
        }
    }
    if (fflush(fo) == EOF || fsync(fileno(fo)) == -1) goto iofail;
    ret = 0;
    goto done;
cipherfail:
    *err = sdscatprintf(sdsempty(), "%s: the cipher failed", in);
    goto done;
iofail:
    *err =
        sdscatprintf(sdsempty(), "%s -> %s: %s", in, out, errno ? strerror(errno) : "short file");
done:
    EVP_CIPHER_CTX_free(ctx);
    if (fi) fclose(fi);
    if (fo) fclose(fo);
    if (ret == -1) unlink(out);
    return ret;
}

int cryptEncryptInPlace(const char *path, sds *err) {
    sds tmp = sdscatprintf(sdsempty(), "%s.enc-%d", path, (int)getpid());
    int ret = cryptRun(path, tmp, 1, err);
    if (ret == 0 && rename(tmp, path) == -1) {
        *err = sdscatprintf(sdsempty(), "renaming %s: %s", tmp, strerror(errno));
        unlink(tmp);
        ret = -1;
    }
    sdsfree(tmp);
    return ret;
}

sds backupPlainFile(const char *path, const char *keyid, sds *err) {
    if (!keyid || !*keyid) return sdsnew(path);
    if (!cryptKeyId()) {
        *err = sdscatprintf(sdsempty(), "%s is encrypted (key id %s): give --encrypt-key", path,
                            keyid);
        return NULL;
    }
    if (strcmp(keyid, cryptKeyId())) {
        *err = sdscatprintf(sdsempty(),
                            "%s is encrypted with key id %s, --encrypt-key is key id %s: wrong key",
                            path, keyid, cryptKeyId());
        return NULL;
    }
    sds plain = sdscatprintf(sdsempty(), "%s.plain-%d", path, (int)getpid());
    if (cryptRun(path, plain, 0, err) == -1) {
        sdsfree(plain);
        return NULL;
    }
    return plain;
}

void backupPlainDone(const char *plain, const char *path) {
    if (plain && strcmp(plain, path)) unlink(plain);
}
