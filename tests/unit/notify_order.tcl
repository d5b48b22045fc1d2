# notify_order.tcl -- the order of keyspace-notification pushes and command
# replies that a RESP3 client subscribed to its own keys' events receives,
# compared byte for byte with the reference server, for the write commands
# of lists, hashes, sets, sorted sets and SORT STORE.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set ref_bin [expr {[info exists ::env(CAIRN_REFERENCE)] ? $::env(CAIRN_REFERENCE) : ""}]
if {$ref_bin eq ""} {
    skip "notify order vs reference" "CAIRN_REFERENCE is not set: no reference server to compare with"
    finish
}

set srv [start_server]
set ref [start_server -binary $ref_bin]

# Per server: a control client and a RESP3 client subscribed to every
# keyspace event of db 0 (HELLO and PSUBSCRIBE read off here, not compared).
foreach name {srv ref} {
    set ctl($name) [client [set $name]]
    r $ctl($name) CONFIG SET notify-keyspace-events KEA
    set sub($name) [client [set $name] -resp 3]
    send_cmd $sub($name) PSUBSCRIBE __keyspace@0__:*
    read_push $sub($name)
}

# Every byte that arrives on c until nothing more came for settle ms.
proc drain_raw {c {settle 150}} {
    set out [string range $::cairn_h::buf($c) $::cairn_h::pos($c) end]
    set ::cairn_h::buf($c) ""
    set ::cairn_h::pos($c) 0
    fconfigure $c -blocking 0
    while {1} {
        set data [read $c]
        if {$data ne ""} { append out $data; continue }
        if {[eof $c]} break
        set before [string length $out]
        ::cairn_h::wait_readable $c $settle
        set data [read $c]
        if {$data eq ""} break
        append out $data
    }
    fconfigure $c -blocking 1
    return $out
}

# Sends the commands (a list of argument lists) on the subscribed client of
# each server after a FLUSHALL and compares the bytes received.
proc compare_seq {cmds} {
    set got {}
    foreach name {srv ref} {
        r $::ctl($name) FLUSHALL
        set bytes ""
        foreach cmd $cmds { append bytes [::cairn_h::encode $cmd] }
        send_raw $::sub($name) $bytes
        dict set got $name [drain_raw $::sub($name)]
    }
    assert_equal [dict get $got ref] [dict get $got srv] "bytes for: $cmds"
}

test "notify order: lists" {
    compare_seq {{RPUSH l a b c d e} {LPUSH l z} {LPUSHX l y} {RPUSHX l x} {LSET l 0 q}
        {LINSERT l BEFORE q p} {LINSERT l AFTER nope w} {LREM l 1 b} {LREM l 0 nope}
        {LTRIM l 1 -1} {LPOP l} {RPOP l} {LPOP l 2} {RPOPLPUSH l m} {RPOPLPUSH m m}
        {LMOVE l m LEFT RIGHT} {LMPOP 1 l LEFT COUNT 5} {LTRIM m 5 6}}
    compare_seq {{RPUSH l a b c} {BLPOP l 0} {BRPOP l 0} {BLMOVE l m LEFT LEFT 0}
        {BLMPOP 0 1 m LEFT COUNT 3} {RPUSH l a b} {LREM l 0 a} {LREM l 0 b}}
}

test "notify order: hashes" {
    compare_seq {{HSET h a 1 b 2 c 3} {HSETNX h a 2} {HSETNX h d 4} {HMSET h e 5}
        {HINCRBY h n 1} {HINCRBYFLOAT h f 1.5} {HDEL h a b nope} {HDEL h nope}
        {HDEL h c d e n f}}
}

test "notify order: sets" {
    compare_seq {{SADD s a b} {SADD s a} {SREM s a nope} {SREM s nope} {SADD t b c}
        {SINTERSTORE d s t} {SUNIONSTORE d s t} {SDIFFSTORE d s t} {SDIFFSTORE d s s}
        {SMOVE t s c} {SMOVE s d b} {SMOVE s s c} {SADD u x} {SMOVE u d x}
        {SADD p 1} {SPOP p} {SADD p 1 2} {SPOP p 5} {SREM t b}}
}

test "notify order: sorted sets" {
    compare_seq {{ZADD z 1 a 2 b 3 c} {ZADD z NX 1 a} {ZADD z XX INCR 2 a} {ZINCRBY z 1 b}
        {ZREM z a nope} {ZREM z nope} {ZPOPMIN z} {ZPOPMAX z 5} {ZADD z 1 a 2 b 3 c 4 d}
        {ZREMRANGEBYSCORE z 1 1} {ZREMRANGEBYRANK z 0 0} {ZREMRANGEBYLEX z - +}}
    compare_seq {{ZADD z 1 a 2 b 3 c 4 d} {BZPOPMIN z 0} {BZPOPMAX z 0} {ZMPOP 1 z MIN}
        {ZPOPMIN z 0} {BZMPOP 0 1 z MAX COUNT 3} {ZADD y 1 b} {ZADD z 1 a 2 b}
        {ZUNIONSTORE d 2 z y} {ZINTERSTORE d 2 z y} {ZDIFFSTORE d 2 z y} {ZDIFFSTORE d 1 y}
        {ZRANGESTORE d z 0 -1} {ZRANGESTORE e z 5 6} {ZPOPMIN z 2} {ZREMRANGEBYRANK y 0 -1}}
}

test "notify order: SORT STORE" {
    compare_seq {{RPUSH l 3 1 2} {SORT l STORE d} {SORT l LIMIT 5 5 STORE d}
        {SADD s 2 1} {SORT s STORE d} {SORT nope STORE d}}
}

finish
