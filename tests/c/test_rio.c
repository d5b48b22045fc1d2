/* test_rio.c: unit tests for persistence/crc64.c and persistence/rio.c.
 * The CRC-64 check value is the standard one for CRC-64/Jones (the RDB
 * trailer of a snapshot redis-server 7.0.15 wrote is checked by the
 * integration tests); the rio tests move the same bytes through every
 * stream type. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc64.h"
#include "rio.h"
#include "test.h"
#include "zmalloc.h"

static const char lorem[] =
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut "
    "labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco "
    "laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in "
    "voluptate velit esse cillum dolore eu fugiat nulla pariatur. Excepteur sint occaecat cupidatat "
    "non proident, sunt in culpa qui officia deserunt mollit anim id est laborum.";

static uint64_t crc64_bitwise(const unsigned char *p, size_t len) {
    uint64_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ULL : crc >> 1;
    }
    return crc;
}

int main(void) {
    TEST("crc64 of 123456789") { CHECK(crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9caULL); }
    TEST("crc64 of nothing is 0") { CHECK(crc64(0, "", 0) == 0); }
    TEST("crc64 table version equals the bitwise definition at every length and split") {
        unsigned char buf[300];
        for (size_t i = 0; i < sizeof(buf); i++) buf[i] = (unsigned char)(i * 131 + 7);
        for (size_t len = 0; len <= sizeof(buf); len += 7) {
            uint64_t want = crc64_bitwise(buf, len);
            CHECK(crc64(0, buf, len) == want);
            size_t half = len / 3;
            CHECK(crc64(crc64(0, buf, half), buf + half, len - half) == want);
        }
    }
    TEST("buffer rio: write, read back, counters and checksum") {
        rio w;
        rioInitWithBuffer(&w, NULL);
        rioEnableChecksum(&w);
        CHECK(rioWrite(&w, "1234", 4) == 1);
        CHECK(rioWrite(&w, "56789", 5) == 1);
        CHECK(w.processed_bytes == 9);
        CHECK(rioTell(&w) == 9);
        CHECK(w.cksum == 0xe9c6d914c4b8d9caULL);
        sds s = rioBufferSds(&w);
        rioFreeBuffer(&w);
        CHECK(sdslen(s) == 9 && memcmp(s, "123456789", 9) == 0);
        rio r;
        rioInitWithBuffer(&r, s);
        rioEnableChecksum(&r);
        char got[9];
        CHECK(rioRead(&r, got, 9) == 1);
        CHECK(memcmp(got, "123456789", 9) == 0);
        CHECK(rioChecksum(&r) == 0xe9c6d914c4b8d9caULL);
        CHECK(rioTell(&r) == 9 && r.processed_bytes == 9);
        /* A short read fails and the error sticks. */
        CHECK(rioRead(&r, got, 1) == 0);
        CHECK(rioHasError(&r));
        rioFreeBuffer(&r);
    }
    TEST("file rio: write, flush, read back") {
        FILE *fp = tmpfile();
        CHECK(fp != NULL);
        rio w;
        rioInitWithFile(&w, fp);
        rioSetAutoSync(&w, 16);
        for (int j = 0; j < 10; j++) CHECK(rioWrite(&w, lorem, sizeof(lorem) - 1) == 1);
        CHECK(rioFlush(&w));
        CHECK(rioTell(&w) == (off_t)(10 * (sizeof(lorem) - 1)));
        rewind(fp);
        rio r;
        rioInitWithFile(&r, fp);
        rioEnableChecksum(&r);
        char buf[sizeof(lorem) - 1];
        int ok = 1;
        for (int j = 0; j < 10; j++)
            ok &= rioRead(&r, buf, sizeof(buf)) == 1 && memcmp(buf, lorem, sizeof(buf)) == 0;
        CHECK(ok);
        CHECK(rioRead(&r, buf, 1) == 0);
        fclose(fp);
    }
    TEST("fd rio: buffered writes through a pipe, reads with read-ahead") {
        int p[2];
        CHECK(pipe(p) == 0);
        rio w;
        rioInitWithFd(&w, p[1]);
        rioEnableChecksum(&w);
        CHECK(rioWrite(&w, "123", 3) == 1);
        CHECK(rioWrite(&w, "456789", 6) == 1);
        CHECK(rioTell(&w) == 9);
        CHECK(rioFlush(&w));
        uint64_t wsum = rioChecksum(&w);
        rioFreeFd(&w);
        close(p[1]);
        rio r;
        rioInitWithFd(&r, p[0]);
        rioEnableChecksum(&r);
        char got[9];
        CHECK(rioRead(&r, got, 2) == 1 && rioRead(&r, got + 2, 7) == 1);
        CHECK(memcmp(got, "123456789", 9) == 0);
        CHECK(rioChecksum(&r) == wsum && wsum == 0xe9c6d914c4b8d9caULL);
        CHECK(rioRead(&r, got, 1) == 0); /* EOF */
        rioFreeFd(&r);
        close(p[0]);
    }
    TEST("fd rio: reads across read-ahead refills, in place, checksum, tell, sticky error") {
        /* 200 KB through a file: several 64 KB refills, reads of every
         * size straddling their edges. */
        FILE *fp = tmpfile();
        CHECK(fp != NULL);
        size_t total = 200 * 1024;
        unsigned char *data = malloc(total);
        for (size_t i = 0; i < total; i++) data[i] = (unsigned char)(i * 7 + i / 251);
        CHECK(fwrite(data, 1, total, fp) == total && fflush(fp) == 0);
        CHECK(lseek(fileno(fp), 0, SEEK_SET) == 0);
        rio r;
        rioInitWithFd(&r, fileno(fp));
        CHECK(rioRead(&r, (unsigned char[1]){0}, 1) == 1); /* before the checksum starts */
        rioEnableChecksum(&r);
        size_t pos = 1, step = 1, in_place = 0;
        int ok = 1;
        unsigned char buf[5000];
        while (pos < total) {
            size_t n = step % 4999 + 1;
            if (n > total - pos) n = total - pos;
            const unsigned char *p = (step % 3 == 0) ? rioReadInPlace(&r, n) : NULL;
            if (p) in_place++;
            else if (rioRead(&r, buf, n) == 1) p = buf;
            ok &= p != NULL && memcmp(p, data + pos, n) == 0;
            pos += n;
            step = step * 31 + 17;
            ok &= rioTell(&r) == (off_t)pos && r.processed_bytes == pos;
        }
        CHECK(ok);
        CHECK(in_place > 0);
        CHECK(rioChecksum(&r) == crc64_bitwise(data + 1, total - 1));
        CHECK(rioRead(&r, buf, 1) == 0 && rioHasError(&r));
        CHECK(rioReadInPlace(&r, 1) == NULL && rioRead(&r, buf, 1) == 0);
        CHECK(r.processed_bytes == total);
        rioFreeFd(&r);
        fclose(fp);
        free(data);
    }
    return TEST_REPORT();
}
