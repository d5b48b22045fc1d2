# aof_replay.tcl -- what the AOF records replays to the same dataset: a
# random stream of write commands of every type (including the random and
# relative ones the propagation rewrites: SPOP, SRANDMEMBER, EXPIRE,
# INCRBYFLOAT, blocking pops, SET ... GET/KEEPTTL, transactions, database
# moves) is applied under appendonly yes; after a restart, and in
# redis-server 7.0 loading the same directory, DEBUG DIGEST is unchanged.
# A read-only replica replays its AOF's writes (EVAL's too).
source [file join [file dirname [info script]] .. helpers harness.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }

proc pick {l} { return [lindex $l [expr {int(rand() * [llength $l])}]] }
proc rnd {n} { return [expr {int(rand() * $n)}] }
proc k {t} { return "$t:[rnd 6]" }
proc mem {} { return [pick [list [rnd 20] [rnd 1000] m[rnd 30] [string repeat x [expr {1 + [rnd 80]}]] -[rnd 9] 1.5]] }

# One random command (a list of arguments).
proc gen {} {
    switch [rnd 40] {
        0 { return [list SET [k s] [mem]] }
        1 { return [list SET [k s] [mem] EX [expr {10000 + [rnd 1000]}]] }
        2 { return [list SET [k s] [mem] KEEPTTL GET] }
        3 { return [list INCRBY [k n] [expr {[rnd 200] - 100}]] }
        4 { return [list INCRBYFLOAT [k f] [expr {rand() * 10}]] }
        5 { return [list APPEND [k s] [mem]] }
        6 { return [list SETRANGE [k s] [rnd 20] [mem]] }
        7 { return [list GETDEL [k s]] }
        8 { return [list GETEX [k s] PX [expr {5000000 + [rnd 1000]}]] }
        9 { return [list EXPIRE [k [pick {s l h z t}]] [expr {20000 + [rnd 1000]}] [pick {NX XX GT LT ""}]] }
        10 { return [list PERSIST [k [pick {s l h z t}]]] }
        11 { return [list RPUSH [k l] [mem] [mem]] }
        12 { return [list LPUSH [k l] [mem]] }
        13 { return [list LPOP [k l] [rnd 3]] }
        14 { return [list LMOVE [k l] [k l] [pick {LEFT RIGHT}] [pick {LEFT RIGHT}]] }
        15 { return [list BLPOP [k l] [k l] 0.01] }
        16 { return [list LSET [k l] [rnd 3] [mem]] }
        17 { return [list LTRIM [k l] [rnd 3] [expr {5 + [rnd 10]}]] }
        18 { return [list LINSERT [k l] [pick {BEFORE AFTER}] [mem] [mem]] }
        19 { return [list SADD [k t] [mem] [mem] [mem]] }
        20 { return [list SREM [k t] [mem]] }
        21 { return [list SPOP [k t] [pick {"" 1 2}]] }
        22 { return [list SMOVE [k t] [k t] [mem]] }
        23 { return [list SINTERSTORE [k t] [k t] [k t]] }
        24 { return [list SUNIONSTORE [k t] [k t] [k t]] }
        25 { return [list HSET [k h] [mem] [mem] [mem] [mem]] }
        26 { return [list HINCRBYFLOAT [k h] f[rnd 3] [expr {rand()}]] }
        27 { return [list HDEL [k h] [mem]] }
        28 { return [list ZADD [k z] [expr {rand() * 100}] [mem] [rnd 50] [mem]] }
        29 { return [list ZINCRBY [k z] [expr {rand()}] [mem]] }
        30 { return [list ZPOPMIN [k z] [rnd 3]] }
        31 { return [list ZUNIONSTORE [k z] 2 [k z] [k z] WEIGHTS 2 3] }
        32 { return [list ZREMRANGEBYRANK [k z] 0 [rnd 3]] }
        33 { return [list PFADD [k p] [mem] [mem]] }
        34 { return [list SETBIT [k b] [rnd 300] [rnd 2]] }
        35 { return [list COPY [k [pick {s l h z t}]] [k [pick {s l h z t}]] REPLACE] }
        36 { return [list RENAME [k [pick {s l h z t}]] [k [pick {s l h z t}]]] }
        37 { return [list DEL [k [pick {s l h z t n f p b}]]] }
        38 { return [list MOVE [k s] [expr {1 + [rnd 3]}]] }
        39 { return [list SORT [k l] ALPHA LIMIT 0 5 STORE [k l]] }
    }
}

test "a random write stream replays to the same dataset after a restart and in redis-server" {
    set srv [start_server -config {appendonly yes appendfsync everysec}]
    set c [client $srv]
    set n 0
    for {set i 0} {$i < 4000} {incr i} {
        if {[rnd 50] == 0} { r $c SELECT [rnd 4] }
        if {[rnd 60] == 0} {
            r $c MULTI
            for {set j 0} {$j < 3} {incr j} { catch {r $c {*}[gen]} }
            catch {r $c EXEC}
            continue
        }
        if {[rnd 400] == 0} { catch {r $c BGREWRITEAOF} }
        set cmd [lsearch -all -inline -not -exact [gen] ""]
        if {![catch {r $c {*}$cmd}]} { incr n }
    }
    wait_for {[info_field $c aof_rewrite_in_progress] == 0}
    set digest [r $c DEBUG DIGEST]
    wait_for {[info_field $c aof_buffer_length] == 0}
    kill_server $srv
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST] "after $n commands"
    stop_server $srv
    if {$ref ne ""} {
        dict set srv binary $ref
        set rs [restart_server $srv]
        set rc [client $rs]
        assert_equal $digest [r $rc DEBUG DIGEST] "redis-server loading the same AOF"
        kill_server $rs
    }
}

test "A read-only replica replays its AOF's writes, scripts' included" {
    # An AOF written by hand, as an older server would have (scripts as
    # EVAL): loading obeys it whatever replica-read-only says.
    set srv [start_server]
    kill_server $srv
    set dir [file join [dict get $srv dir] appendonlydir]
    file mkdir $dir
    write_bytes [file join $dir appendonly.aof.manifest] "file appendonly.aof.1.incr.aof seq 1 type i\n"
    write_bytes [file join $dir appendonly.aof.1.incr.aof] [resp SELECT 9][resp SET plain 1][resp EVAL \
        {redis.call('set', KEYS[1], '100')} 1 foo][resp EVAL {redis.call('incr', KEYS[1])} 1 foo]
    # (port 1: no primary answers there, the replica serves stale data)
    dict set srv config {appendonly yes replica-read-only yes replicaof {127.0.0.1 1}}
    set srv [restart_server $srv]
    set c [client $srv]
    r $c SELECT 9
    assert_equal {1 101} [r $c MGET plain foo]
    assert_error "READONLY *" {r $c SET after 1}
    kill_server $srv
}

finish
