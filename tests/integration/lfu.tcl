# lfu.tcl -- the LFU access counter under allkeys-lfu / volatile-lfu, against
# redis-server 7.0: OBJECT FREQ after the same commands (exactly, with
# lfu-log-factor 0, where every access increments; in Redis' ranges with
# the default factor, where increments get rarer as the counter grows),
# and the counter surviving DEBUG RELOAD, SAVE and a restart, DUMP/RESTORE
# FREQ, and a snapshot moved from cairn to redis-server and back (the RDB
# FREQ opcode). Eviction itself is not tested here: it does not exist yet.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }

proc dump_path {srv} { return [file join [dict get $srv dir] dump.rdb] }

# Commands run in order on a fresh server; after each "?" entry the
# counter of that key is recorded. Reads and writes of every type, the
# lookups that do not count (EXISTS, TYPE, TTL, OBJECT), overwrites (which
# keep the counter, as Redis 7.0 does) and new keys made by COPY/RENAME.
set script {
    {SET s v} {? s} {GET s} {GET s} {? s} {SET s w} {? s} {APPEND s x} {? s}
    {STRLEN s} {? s} {GETRANGE s 0 1} {? s} {EXISTS s} {TYPE s} {TTL s} {? s}
    {EXPIRE s 100} {? s} {PERSIST s} {? s}
    {SET n 10} {INCR n} {INCR n} {? n} {INCRBY n 5} {? n}
    {RPUSH l a b} {? l} {LRANGE l 0 -1} {? l} {RPUSH l c} {? l} {LLEN l} {? l}
    {HSET h a 1} {? h} {HGET h a} {? h} {HSET h b 2} {? h} {HGETALL h} {? h}
    {SADD st a} {SMEMBERS st} {? st} {SISMEMBER st a} {? st} {SADD st2 b} {SMOVE st st2 a} {? st2}
    {ZADD z 1 a} {ZSCORE z a} {? z} {ZRANGE z 0 -1} {? z}
    {SETEX e 100 v} {? e} {GETEX e PERSIST} {? e}
    {SET m1 a} {MGET m1 m1} {? m1} {MSET m1 b} {? m1}
    {PFADD hll a} {? hll} {PFCOUNT hll} {? hll}
    {SET c1 v} {COPY c1 c2} {? c1} {? c2} {RENAME c1 c3} {? c3}
    {DUMP c3} {? c3} {OBJECT ENCODING c3} {? c3} {TOUCH c3} {? c3}
    {SET bs v} {SETBIT bs 1 1} {? bs} {GETBIT bs 1} {? bs} {BITCOUNT bs} {? bs}
}

proc run_script {c script} {
    set out {}
    foreach cmd $script {
        if {[lindex $cmd 0] eq "?"} {
            lappend out "[lindex $cmd 1]=[r $c OBJECT FREQ [lindex $cmd 1]]"
        } else {
            r $c {*}$cmd
        }
    }
    return $out
}

test "With lfu-log-factor 0, OBJECT FREQ counts accesses exactly as redis-server does" {
    set srv [start_server -config {maxmemory-policy allkeys-lfu lfu-log-factor 0 lfu-decay-time 0}]
    set c [client $srv]
    set mine [run_script $c $script]
    # Read by hand from Redis 7.0's rules, so the test stands without a
    # reference server too: a new key starts at 5, a counted lookup adds 1.
    assert_equal {s=5 s=7 s=8 s=9 s=10 s=11 s=11 s=12 s=13} [lrange $mine 0 8]
    if {$ref ne ""} {
        set rsrv [start_server -binary $ref -config {maxmemory-policy allkeys-lfu lfu-log-factor 0 lfu-decay-time 0}]
        set rc [client $rsrv]
        assert_equal [run_script $rc $script] $mine
        kill_server $rsrv
    }
    # The counter saturates at 255.
    r $c SET sat v
    for {set i 0} {$i < 300} {incr i} { send_cmd $c GET sat }
    for {set i 0} {$i < 300} {incr i} { read_reply $c }
    assert_equal 255 [r $c OBJECT FREQ sat]
    kill_server $srv
}

test "With the default lfu-log-factor the counter grows logarithmically, as in redis-server" {
    # Redis' documented table for factor 10: ~10 after 100 hits, ~18 after
    # 1000. The coin is random, so ranges are asserted, on both servers:
    # each holds 99.99% of 20,000 simulated runs of Redis' rule (redis-server
    # itself once gave 13 at factor 100, outside an earlier, tighter range).
    set servers [list [start_server -config {maxmemory-policy volatile-lfu}]]
    if {$ref ne ""} { lappend servers [start_server -binary $ref -config {maxmemory-policy volatile-lfu}] }
    foreach srv $servers {
        set c [client $srv]
        r $c SET k v
        foreach {hits lo hi} {100 6 16 900 11 30} {
            for {set i 0} {$i < $hits} {incr i} { send_cmd $c GET k }
            for {set i 0} {$i < $hits} {incr i} { read_reply $c }
            assert_range [r $c OBJECT FREQ k] $lo $hi "[dict get $srv binary]: after [expr {$hits == 100 ? 100 : 1000}] hits"
        }
        # A higher factor slows it down further.
        r $c CONFIG SET lfu-log-factor 100
        r $c SET k2 v
        for {set i 0} {$i < 1000} {incr i} { send_cmd $c GET k2 }
        for {set i 0} {$i < 1000} {incr i} { read_reply $c }
        assert_range [r $c OBJECT FREQ k2] 6 17 "[dict get $srv binary]: factor 100"
        kill_server $srv
    }
}

# A server under allkeys-lfu (factor 0) holding keys with known counters.
# No decay: a minute boundary crossed mid-test would otherwise take one off
# every counter (CI once saw '24 5 4').
proc lfu_server {args} {
    set srv [start_server {*}$args -config {maxmemory-policy allkeys-lfu lfu-log-factor 0 lfu-decay-time 0}]
    set c [client $srv]
    r $c SET a v
    r $c RPUSH b x y
    r $c HSET h f v
    for {set i 0} {$i < 20} {incr i} { r $c GET a }
    r $c LRANGE b 0 -1
    return $srv
}

test "The counter survives DEBUG RELOAD, SAVE and a restart" {
    set srv [lfu_server]
    set c [client $srv]
    set want {25 6 5}
    assert_equal $want [list [r $c OBJECT FREQ a] [r $c OBJECT FREQ b] [r $c OBJECT FREQ h]]
    assert_equal OK [r $c DEBUG RELOAD]
    assert_equal $want [list [r $c OBJECT FREQ a] [r $c OBJECT FREQ b] [r $c OBJECT FREQ h]]
    assert_equal OK [r $c SAVE]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $want [list [r $c OBJECT FREQ a] [r $c OBJECT FREQ b] [r $c OBJECT FREQ h]]
    kill_server $srv
}

test "RESTORE FREQ sets the counter; a replaced key does not inherit it; DUMP/RESTORE moves it" {
    set srv [lfu_server]
    set c [client $srv]
    set p [r $c DUMP a]
    r $c RESTORE r1 0 $p FREQ 100
    assert_equal 100 [r $c OBJECT FREQ r1]
    r $c RESTORE r1 0 $p REPLACE
    assert_equal 5 [r $c OBJECT FREQ r1]
    # DUMP was an access of a: 20 GETs, the DUMP and the initial 5.
    r $c RESTORE r2 0 $p FREQ [r $c OBJECT FREQ a]
    assert_equal 26 [r $c OBJECT FREQ r2]
    # IDLETIME is accepted and ignored under LFU, as in Redis.
    r $c RESTORE r3 0 $p IDLETIME 1000
    assert_equal 5 [r $c OBJECT FREQ r3]
    if {$ref ne ""} {
        set rsrv [start_server -binary $ref -config {maxmemory-policy allkeys-lfu lfu-decay-time 0}]
        set rc [client $rsrv]
        r $rc RESTORE moved 0 $p FREQ 77
        assert_equal 77 [r $rc OBJECT FREQ moved]
        r $c RESTORE back 0 [r $rc DUMP moved] FREQ [r $rc OBJECT FREQ moved]
        assert_equal 77 [r $c OBJECT FREQ back]
        kill_server $rsrv
    }
    kill_server $srv
}

test "A cairn snapshot's counters load into redis-server, and redis-server's into cairn" {
    if {$ref eq ""} { skip_test "no reference server" }
    set srv [lfu_server]
    set c [client $srv]
    r $c RESTORE hot 0 [r $c DUMP a] FREQ 200
    r $c SAVE
    set rsrv [start_server -binary $ref -config {maxmemory-policy allkeys-lfu lfu-log-factor 0 lfu-decay-time 0}]
    stop_server $rsrv
    file copy -force [dump_path $srv] [dump_path $rsrv]
    set rsrv [restart_server $rsrv]
    set rc [client $rsrv]
    foreach {k want} {a 26 b 6 h 5 hot 200} {
        assert_equal $want [r $rc OBJECT FREQ $k] "cairn -> redis: $k"
    }
    # (redis-server's DUMP is an access too)
    r $rc RESTORE fromredis 0 [r $rc DUMP a] FREQ 150
    r $rc SAVE
    stop_server $srv
    file copy -force [dump_path $rsrv] [dump_path $srv]
    set srv [restart_server $srv]
    set c [client $srv]
    foreach {k want} {a 27 hot 200 fromredis 150} {
        assert_equal $want [r $c OBJECT FREQ $k] "redis -> cairn: $k"
    }
    kill_server $rsrv
    kill_server $srv
}

finish
