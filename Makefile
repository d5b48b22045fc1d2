# cairn build. `make` builds src/cairn-server, `make run` starts it on
# default.conf, `make test` builds everything and runs the whole suite.
# `make test SANITIZE=1` does the same with AddressSanitizer and UBSan.

CC ?= cc
OPT ?= -O2
WARN := -Wall -Wextra
CFLAGS_BASE := -std=gnu11 $(WARN) -g -MMD -MP -Isrc
LIBS := -lm -lpthread -llz4 -lcrypto

ifeq ($(SANITIZE),1)
  BUILD := build/sanitize
  SERVER := $(BUILD)/cairn-server
  # jemalloc would hide allocations from ASan, so the sanitized build uses libc malloc.
  CFLAGS := $(CFLAGS_BASE) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
  LDFLAGS := -fsanitize=address,undefined
else
  BUILD := build/normal
  SERVER := src/cairn-server
  CFLAGS := $(CFLAGS_BASE) $(OPT)
  LDFLAGS :=
  LIBS += -ljemalloc
endif

# Extra runner flags, e.g. TESTFLAGS="--tags -sometag" to skip tagged tests.
TESTFLAGS ?=

SRC := $(wildcard src/*.c)
OBJ := $(patsubst src/%.c,$(BUILD)/%.o,$(SRC))
# C unit tests link only the self-contained data structure modules.
LIBOBJ := $(patsubst %,$(BUILD)/%.o,sds util zmalloc dict siphash listpack intset zskiplist quicklist hll)
CTESTS_SRC := $(wildcard tests/c/test_*.c)
CTESTS := $(patsubst tests/c/test_%.c,$(BUILD)/tests/test-%,$(CTESTS_SRC))

all: check-deps $(SERVER)

# One clear line when a build dependency is missing.
check-deps:
	@command -v $(CC) >/dev/null 2>&1 || { echo "cairn: no C compiler: apt-get install build-essential"; exit 1; }
	@printf '#include <lz4.h>\nint main(void){return LZ4_versionNumber() == 0;}\n' | $(CC) -x c - -o /dev/null -llz4 2>/dev/null || { echo "cairn: liblz4 missing: apt-get install liblz4-dev"; exit 1; }
	@printf '#include <openssl/sha.h>\nint main(void){unsigned char d[20]; return SHA1((const unsigned char *)"", 0, d) == 0;}\n' | $(CC) -x c - -o /dev/null -lcrypto 2>/dev/null || { echo "cairn: libcrypto missing: apt-get install libssl-dev"; exit 1; }
ifneq ($(SANITIZE),1)
	@printf '#include <jemalloc/jemalloc.h>\nint main(void){return 0;}\n' | $(CC) -x c - -o /dev/null -ljemalloc 2>/dev/null || { echo "cairn: jemalloc missing: apt-get install libjemalloc-dev"; exit 1; }
endif

$(BUILD)/%.o: src/%.c | $(BUILD)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD):
	@mkdir -p $(BUILD)/tests

$(SERVER): $(OBJ)
	$(CC) $(LDFLAGS) -o $@ $(OBJ) $(LIBS)

$(BUILD)/tests/test-%: tests/c/test_%.c $(LIBOBJ) | $(BUILD)
	$(CC) $(CFLAGS) -Itests/c -o $@ $< $(LIBOBJ) $(LDFLAGS) $(LIBS)

run: all
	./src/cairn-server default.conf

ctests: $(CTESTS)

test: all ctests
	@command -v tclsh >/dev/null 2>&1 || { echo "cairn: tclsh missing: apt-get install tcl"; exit 1; }
	tclsh tests/run --server $(SERVER) --ctests $(BUILD)/tests $(TESTFLAGS)

bench: all
	utils/bench

fuzz:
	$(MAKE) -C tests/fuzz

clean:
	rm -rf build src/cairn-server

format:
	clang-format -i src/*.c src/*.h tests/c/*.c tests/c/*.h

.PHONY: all check-deps run test ctests bench fuzz clean format

-include $(OBJ:.o=.d)
