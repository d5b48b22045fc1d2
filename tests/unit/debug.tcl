# debug.tcl -- DEBUG subcommands that Redis' own tests and tools lean on:
# POPULATE's bounds (a negative count or size, a prefix longer than the
# name buffer, which used to read past it) and DEBUG OBJECT's fields
# (serializedlength is the value's RDB length; quicklists add ql_* fields).
# DEBUG HTSTATS-KEY prints the stats of a value's own hash table; DEBUG
# LOADAOF reloads the dataset from the AOF files; MALLCTL reads jemalloc.
# The expected values are redis-server 7.0.15's.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]

test "DEBUG POPULATE refuses a negative count or size" {
    assert_error "ERR value is out of range, must be positive" {r $c DEBUG POPULATE -1}
    assert_error "ERR value is out of range, must be positive" {r $c DEBUG POPULATE 1 k -1}
    assert_equal 0 [r $c DBSIZE]
}

test "DEBUG POPULATE cuts a long prefix to the name buffer, as Redis" {
    r $c FLUSHALL
    assert_equal OK [r $c DEBUG POPULATE 2 [string repeat x 300] 5]
    # Both names are cut to the same 127 bytes, so one key results.
    assert_equal 1 [r $c DBSIZE]
    assert_equal 127 [string length [r $c RANDOMKEY]]
    assert_equal PONG [r $c PING]
}

test "DEBUG OBJECT: serializedlength and the quicklist fields" {
    r $c FLUSHALL
    r $c RPUSH l a b c
    r $c SET s hello
    r $c HSET h f v
    r $c SADD set 1 2 3
    assert_match "*encoding:quicklist serializedlength:19 *ql_nodes:1 ql_avg_node:3.00 ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:16" [r $c DEBUG OBJECT l]
    assert_match "*encoding:embstr serializedlength:6 *" [r $c DEBUG OBJECT s]
    assert_match "*encoding:listpack serializedlength:14 *" [r $c DEBUG OBJECT h]
    assert_match "*encoding:intset serializedlength:15 *" [r $c DEBUG OBJECT set]
    assert_error "ERR no such key" {r $c DEBUG OBJECT nosuch}
}

test "DEBUG HTSTATS-KEY: the value's own hash table, or an error" {
    r $c FLUSHALL
    r $c CONFIG SET set-max-intset-entries 0
    r $c CONFIG SET hash-max-listpack-entries 0
    r $c CONFIG SET zset-max-listpack-entries 0
    r $c SADD s 1 2 3
    r $c HSET h f v
    r $c ZADD z 1 m
    r $c SET str x
    set st [r $c DEBUG HTSTATS-KEY s]
    assert_match "Hash table 0 stats (main hash table):*number of elements: 3*" $st
    assert_match "*number of elements: 1*" [r $c DEBUG HTSTATS-KEY h]
    assert_match "*number of elements: 1*" [r $c DEBUG HTSTATS-KEY z]
    assert_error "ERR no such key" {r $c DEBUG HTSTATS-KEY nokey}
    assert_error "ERR The value stored at the specified key is not represented using an hash table" \
            {r $c DEBUG HTSTATS-KEY str}
    r $c CONFIG SET set-max-intset-entries 512
    r $c SADD small 1
    assert_error "ERR The value stored at the specified key is not represented using an hash table" \
            {r $c DEBUG HTSTATS-KEY small}
    assert_error "ERR unknown subcommand*" {r $c DEBUG HTSTATS-KEY s full}
    r $c CONFIG SET hash-max-listpack-entries 128
    r $c CONFIG SET zset-max-listpack-entries 128
}

test "DEBUG HTSTATS: an empty table still gets its header" {
    r $c SELECT 3
    r $c FLUSHDB
    assert_equal "\[Dictionary HT\]\nHash table 0 stats (main hash table):\nNo stats available for empty dictionaries\n\[Expires HT\]\nHash table 0 stats (main hash table):\nNo stats available for empty dictionaries\n" \
            [r $c DEBUG HTSTATS 3]
    r $c SELECT 0
}

test "DEBUG LOADAOF replaces the dataset with what the AOF files hold" {
    set a [start_server -config {appendonly yes appendfsync no}]
    set ac [client $a]
    r $ac SET k v
    r $ac RPUSH l a b
    # Written just now and not fsynced: LOADAOF writes it out first.
    r $ac SET last 1
    # A write the server never saw, appended to the open incremental file.
    set incr [file join [dict get $a dir] appendonlydir appendonly.aof.1.incr.aof]
    assert_equal OK [r $ac DEBUG LOADAOF]
    set f [open $incr a]
    fconfigure $f -translation binary
    puts -nonewline $f [resp SET outside yes]
    close $f
    assert_equal OK [r $ac DEBUG LOADAOF]
    assert_equal {v {a b} 1 yes} [list [r $ac GET k] [r $ac LRANGE l 0 -1] [r $ac GET last] [r $ac GET outside]]
    assert_equal 4 [r $ac DBSIZE]
    kill_server $a
}

test "DEBUG MALLCTL and MALLCTL-STR read and poke jemalloc settings" {
    set alloc [info_field $c mem_allocator memory]
    if {![string match jemalloc-* $alloc]} { skip_test "not linked with jemalloc ($alloc)" }
    set page [r $c DEBUG MALLCTL arenas.page]
    assert {$page >= 4096 && ($page & ($page - 1)) == 0}
    assert_match "[string range $alloc 9 end]-*" [r $c DEBUG MALLCTL-STR version]
    assert_equal OK [r $c DEBUG MALLCTL-STR thread.tcache.flush VOID]
    assert_error "ERR Operation not permitted" {r $c DEBUG MALLCTL thread.tcache.flush}
    assert_error "ERR No such file or directory" {r $c DEBUG MALLCTL no.such.key}
    assert_error "ERR value is not an integer or out of range" {r $c DEBUG MALLCTL arenas.page x}
}

finish
