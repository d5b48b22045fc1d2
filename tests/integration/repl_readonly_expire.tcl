# repl_readonly_expire.tcl -- on a read-only replica a key its primary gave a
# TTL stays in place after it expires (only the primary's DEL removes it),
# but every read reads it as missing: plain reads, the write-flagged reads
# that cache or prepare (PFCOUNT rewrites its cached cardinality through a
# write lookup), the introspection of a key (TTL, TYPE, OBJECT,
# DUMP; MEMORY USAGE sees the stored entry, as in Redis) and the key walks
# (KEYS, SCAN, RANDOMKEY). Passes against
# redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

set m [start_server -config {repl-diskless-sync-delay 0}]
set r [start_server -config {repl-diskless-sync-delay 0}]
set mc [client $m]
set rc [client $r]
repl_attach $rc $m
# Only the primary may delete these keys, and with its active expiry off
# it will not until a client touches them there.
r $mc DEBUG SET-ACTIVE-EXPIRE 0
r $mc PFADD hll a b c d e
r $mc PFADD hll2 x y
r $mc SET str hello
r $mc HSET h f v
r $mc RPUSH l a b
r $mc SADD s m1 m2
r $mc ZADD z 1 a
foreach k {hll hll2 str h l s z} { r $mc PEXPIRE $k 400 }
r $mc SET live 1
repl_wait_caught_up $mc $rc

test "Before the TTL: the replica reads the keys" {
    assert_equal 5 [r $rc PFCOUNT hll]
    assert_equal 7 [r $rc PFCOUNT hll hll2]
    assert_equal hello [r $rc GET str]
}

after 500

test "After the TTL the keys stay on the replica" {
    assert_equal 8 [r $rc DBSIZE]
}

test "PFCOUNT of an expired key on a read-only replica is 0" {
    assert_equal 0 [r $rc PFCOUNT hll]
    # a second time: the first did not bring the stale value back
    assert_equal 0 [r $rc PFCOUNT hll]
    assert_equal 0 [r $rc PFCOUNT hll hll2]
    assert_equal 8 [r $rc DBSIZE]
}

test "Reads of each type miss the expired keys" {
    assert_equal {} [r $rc GET str]
    assert_equal 0 [r $rc STRLEN str]
    assert_equal {} [r $rc GETRANGE str 0 -1]
    assert_equal 0 [r $rc BITCOUNT str]
    assert_equal {} [r $rc HGET h f]
    assert_equal {} [r $rc LRANGE l 0 -1]
    assert_equal {} [r $rc SMEMBERS s]
    assert_equal {} [r $rc ZRANGE z 0 -1]
    assert_equal {{} {}} [r $rc MGET str h]
    assert_equal 0 [r $rc EXISTS str h l s z hll]
    assert_equal {} [r $rc SUNION s s]
    assert_equal {0} [r $rc BITFIELD_RO str GET u8 0]
}

test "Introspection of an expired key: gone" {
    assert_equal -2 [r $rc TTL str]
    assert_equal -2 [r $rc PTTL hll]
    assert_equal -2 [r $rc EXPIRETIME h]
    assert_equal none [r $rc TYPE l]
    assert_equal {} [r $rc OBJECT ENCODING s]
    # MEMORY USAGE looks at the entry as stored, as in Redis
    assert {[r $rc MEMORY USAGE z] > 0}
    assert_equal {} [r $rc DUMP str]
    assert_equal 0 [r $rc TOUCH str hll]
}

test "Key walks skip the expired keys" {
    assert_equal {live} [r $rc KEYS *]
    set seen {}
    set cur 0
    while 1 {
        lassign [r $rc SCAN $cur COUNT 100] cur keys
        lappend seen {*}$keys
        if {$cur == 0} break
    }
    assert_equal {live} $seen
    for {set j 0} {$j < 20} {incr j} { assert_equal live [r $rc RANDOMKEY] }
    assert_equal 8 [r $rc DBSIZE]
}

test "The primary's DEL removes them from the replica" {
    foreach k {hll hll2 str h l s z} { r $mc EXISTS $k }
    repl_wait_caught_up $mc $rc
    wait_for {[r $rc DBSIZE] == 1} 5000 "the DELs arrived"
    assert_equal [r $mc DEBUG DIGEST] [r $rc DEBUG DIGEST]
}

finish
