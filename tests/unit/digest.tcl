# digest.tcl -- DEBUG DIGEST and DEBUG DIGEST-VALUE: their properties on
# cairn alone, and (with a reference server) equality with redis-server's
# digests for the same data in every encoding.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server -args {--enable-debug-command yes}]
set c [client $srv]

set zero [string repeat 0 40]

test "DEBUG DIGEST of an empty dataset is all zeros" {
    r $c FLUSHALL
    assert_equal $zero [r $c DEBUG DIGEST]
    assert_equal [list $zero $zero] [r $c DEBUG DIGEST-VALUE nosuch other]
    assert_equal {} [r $c DEBUG DIGEST-VALUE]
}

test "DEBUG DIGEST follows list order but not set or hash order" {
    r $c FLUSHALL
    r $c RPUSH l a b c
    r $c RPUSH m c b a
    assert {[r $c DEBUG DIGEST-VALUE l] ne [r $c DEBUG DIGEST-VALUE m]}
    r $c SADD s1 a b c
    r $c SADD s2 c b a
    assert_equal [r $c DEBUG DIGEST-VALUE s1] [r $c DEBUG DIGEST-VALUE s2]
    r $c HSET h1 f1 v1 f2 v2
    r $c HSET h2 f2 v2 f1 v1
    assert_equal [r $c DEBUG DIGEST-VALUE h1] [r $c DEBUG DIGEST-VALUE h2]
}

test "DEBUG DIGEST changes with data, database and TTL presence" {
    r $c FLUSHALL
    r $c SET k v
    set d1 [r $c DEBUG DIGEST]
    assert {$d1 ne $zero}
    r $c MOVE k 1
    set d2 [r $c DEBUG DIGEST]
    assert {$d2 ne $d1}
    r $c SELECT 1
    r $c MOVE k 0
    r $c SELECT 0
    assert_equal $d1 [r $c DEBUG DIGEST]
    r $c EXPIRE k 1000
    set d3 [r $c DEBUG DIGEST]
    assert {$d3 ne $d1}
    # the TTL's value is not part of it, only its presence
    r $c EXPIRE k 5000
    assert_equal $d3 [r $c DEBUG DIGEST]
    r $c PERSIST k
    assert_equal $d1 [r $c DEBUG DIGEST]
}

test "DEBUG DIGEST does not depend on the encoding" {
    r $c FLUSHALL
    r $c HSET h a 1 b 2
    r $c ZADD z 1 a 2 b
    r $c SADD s 1 2 3
    r $c SET n 12345
    set before [r $c DEBUG DIGEST]
    r $c CONFIG SET hash-max-listpack-entries 0
    r $c CONFIG SET zset-max-listpack-entries 0
    r $c CONFIG SET set-max-intset-entries 0
    r $c HSET h c 3
    r $c HDEL h c
    r $c ZADD z 3 c
    r $c ZREM z c
    r $c SADD s x
    r $c SREM s x
    r $c APPEND n ""
    assert_equal hashtable [r $c OBJECT ENCODING h]
    assert_equal skiplist [r $c OBJECT ENCODING z]
    assert_equal hashtable [r $c OBJECT ENCODING s]
    assert_equal $before [r $c DEBUG DIGEST]
    r $c CONFIG SET hash-max-listpack-entries 128
    r $c CONFIG SET zset-max-listpack-entries 128
    r $c CONFIG SET set-max-intset-entries 512
}

# Builds the same data in both servers, in the listpack/intset encodings
# and in the large ones, with integers, long strings and TTLs.
proc digest_fill {c} {
    r $c FLUSHALL
    r $c SET str hello
    r $c SET int 12345
    r $c SET neg -99
    r $c SET big [string repeat x 5000]
    r $c SET ttl v EX 1000
    r $c RPUSH l a b 1 2 -5 [string repeat y 100]
    r $c SADD si 1 2 3 -100
    r $c SADD ss a b c 1
    r $c HSET hs f v f2 2 3 x
    r $c ZADD zs 1 a 2.5 b -3 c 1e100 d 0.1 e 10 11
    r $c PEXPIRE zs 100000
    for {set i 0} {$i < 600} {incr i} {
        r $c RPUSH biglist e$i $i
        r $c SADD bigintset $i
        r $c SADD bigset m$i
        r $c HSET bighash f$i $i
        r $c ZADD bigzset [expr {$i * 1.5}] m$i
    }
    r $c RPUSH plain [string repeat z 20000]
    r $c SELECT 5
    r $c SET other db5
    r $c LPUSH l5 q
    r $c SELECT 0
}

if {$::cairn(reference) eq ""} {
    skip "DEBUG DIGEST matches the reference server" "no reference server (CAIRN_REFERENCE)"
} else {
    set ref [start_server -binary $::cairn(reference) -args {--enable-debug-command yes}]
    set rc [client $ref]
    test "DEBUG DIGEST matches the reference server" {
        foreach conf {{list-compress-depth 0} {list-compress-depth 1} {list-max-listpack-size 4}} {
            r $c CONFIG SET {*}$conf
            r $rc CONFIG SET {*}$conf
            digest_fill $c
            digest_fill $rc
            assert_equal [r $rc DEBUG DIGEST] [r $c DEBUG DIGEST] "DEBUG DIGEST ($conf)"
            set keys {str int neg big ttl l si ss hs zs biglist bigintset bigset bighash bigzset plain nosuch}
            set a [r $c DEBUG DIGEST-VALUE {*}$keys]
            set b [r $rc DEBUG DIGEST-VALUE {*}$keys]
            foreach k $keys x $a y $b { assert_equal $y $x "DEBUG DIGEST-VALUE $k ($conf)" }
        }
        r $c CONFIG SET list-max-listpack-size -2
        r $rc CONFIG SET list-max-listpack-size -2
    }
    stop_server $ref
}

finish
