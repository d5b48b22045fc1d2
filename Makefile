# cairn build. `make` builds src/cairn-server, `make run` starts it on
# default.conf, `make test` builds everything and runs the whole suite.
# `make test SANITIZE=1` does the same with AddressSanitizer and UBSan.

CC ?= cc
OPT ?= -O2
WARN := -Wall -Wextra
CFLAGS_BASE := -std=gnu11 $(WARN) -g -MMD -MP -Isrc -Ipersistence -Ireplication -Iutils/backup -I/usr/include/lua5.1
LIBS := -lm -lpthread -llz4 -lzstd -llzf -lssl -lcrypto -llua5.1-cjson -llua5.1-bitop -llua5.1

ifeq ($(SANITIZE),1)
  BUILD := build/sanitize
  SERVER := $(BUILD)/cairn-server
  # jemalloc would hide allocations from ASan, so the sanitized build uses libc malloc.
  CFLAGS := $(CFLAGS_BASE) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
  LDFLAGS := -rdynamic -fsanitize=address,undefined
else
  BUILD := build/normal
  SERVER := src/cairn-server
  CFLAGS := $(CFLAGS_BASE) $(OPT)
  LDFLAGS := -rdynamic
  LIBS += -ljemalloc
endif

# Extra runner flags, e.g. TESTFLAGS="--tags -sometag" to skip tagged tests.
TESTFLAGS ?=

# utils/backup is cairn-backup, which the server binary runs as
# `cairn-server --backup` (utils/cairn-backup), on the server's own loader.
SRC := $(wildcard src/*.c persistence/*.c replication/*.c utils/backup/*.c)
OBJ := $(patsubst %.c,$(BUILD)/%.o,$(notdir $(SRC)))
vpath %.c src persistence replication utils/backup
# C unit tests link only the self-contained data structure modules.
LIBOBJ := $(patsubst %,$(BUILD)/%.o,sds util zmalloc dict siphash listpack intset zskiplist quicklist hll crc64 rio)
CTESTS_SRC := $(wildcard tests/c/test_*.c)
CTESTS := $(patsubst tests/c/test_%.c,$(BUILD)/tests/test-%,$(CTESTS_SRC))

# LD_PRELOAD shims the tests load into the server (tests/helpers/*.c),
# built plain (not sanitized) next to the server of this build.
SHIMS := $(BUILD)/powerloss.so $(BUILD)/faultfs.so

all: check-deps $(SERVER) $(SHIMS)

# A missing Debian package is installed (as root with apt-get) or named in
# one exact apt-get line; see utils/deps.
check-deps:
	@CC="$(CC)" sh utils/deps build

$(BUILD)/%.o: %.c | $(BUILD) check-deps
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD):
	@mkdir -p $(BUILD)/tests

$(SERVER): $(OBJ)
	$(CC) $(LDFLAGS) -o $@ $(OBJ) $(LIBS)

$(BUILD)/%.so: tests/helpers/%.c | $(BUILD)
	$(CC) -std=gnu11 $(WARN) -g -O2 -fPIC -shared -pthread -o $@ $< -ldl

$(BUILD)/tests/test-%: tests/c/test_%.c $(LIBOBJ) | $(BUILD)
	$(CC) $(CFLAGS) -Itests/c -o $@ $< $(LIBOBJ) $(LDFLAGS) $(LIBS)

run: all
	./src/cairn-server default.conf

ctests: $(CTESTS)

test: all ctests
	@CC="$(CC)" sh utils/deps test
	tclsh tests/run --server $(SERVER) --ctests $(BUILD)/tests $(TESTFLAGS)

bench: all
	utils/bench

# The parser fuzzers (tests/fuzz) are built, then the command-table fuzzer
# (tests/unit/cmdfuzz.tcl) has a long run with a random seed, printed so a
# failure can be rerun: make fuzz-commands CAIRN_FUZZ_SEED=N CAIRN_FUZZ_ROUNDS=N
fuzz: fuzz-commands
	$(MAKE) -C tests/fuzz

fuzz-commands: all
	@seed=$${CAIRN_FUZZ_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	rounds=$${CAIRN_FUZZ_ROUNDS:-5000}; \
	echo "fuzz-commands: CAIRN_FUZZ_SEED=$$seed CAIRN_FUZZ_ROUNDS=$$rounds"; \
	CAIRN_FUZZ_SEED=$$seed CAIRN_FUZZ_ROUNDS=$$rounds \
	    tclsh tests/run --server $(SERVER) --only cmdfuzz --timeout 86400 $(TESTFLAGS)

clean:
	rm -rf build src/cairn-server

format:
	clang-format -i src/*.[ch] $(wildcard persistence/*.[ch] replication/*.[ch] utils/backup/*.[ch]) tests/c/*.c tests/c/*.h

.PHONY: all check-deps run test ctests bench fuzz fuzz-commands clean format

-include $(OBJ:.o=.d)
