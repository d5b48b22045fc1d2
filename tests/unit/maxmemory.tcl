# maxmemory: every eviction policy under a write flood stays inside the
# budget; volatile-* touch only keys with a TTL and answer -OOM when none is
# left; LRU keeps recently read keys clearly more often than random eviction
# (the ratio is printed); LFU keeps frequently used keys; volatile-ttl
# prefers the nearest expiry; evicted keys fire `evicted` and reach a
# replica as DELs while the replica (replica-ignore-maxmemory) evicts
# nothing itself; noeviction's -OOM (MULTI included); lazyfree-lazy-eviction
# and a zero tenacity. Passes against redis-server too.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

set srv [start_server]
set c [client $srv]

proc used {c} { return [info_field $c used_memory memory] }
# Within the budget, give or take the INFO reply being built (the same few
# KB Redis' own tests allow).
proc fits {c} { return [expr {[used $c] <= [lindex [r $c CONFIG GET maxmemory] 1] + 32 * 1024}] }
proc evicted {c} { return [info_field $c evicted_keys stats] }

# Pipelined writes: cmds is a list of commands (each a list); replies are
# read as raw bytes so -OOM does not stop the batch. Returns the replies.
proc pipe {c cmds} {
    set buf ""
    foreach cmd $cmds { append buf [resp {*}$cmd] }
    send_raw $c $buf
    set out {}
    foreach cmd $cmds { lappend out [read_raw_reply $c] }
    return $out
}

# Fill keys prefix:0 .. prefix:n-1 with values of `size` bytes (and a TTL
# when ttl > 0), in batches of 200.
proc fill {c prefix n size {ttl 0}} {
    set val [string repeat v $size]
    for {set i 0} {$i < $n} {incr i 200} {
        set cmds {}
        for {set j $i} {$j < $i + 200 && $j < $n} {incr j} {
            if {$ttl > 0} {
                lappend cmds [list SET $prefix:$j $val EX $ttl]
            } else {
                lappend cmds [list SET $prefix:$j $val]
            }
        }
        pipe $c $cmds
    }
}

# How many of the given keys exist.
proc surviving {c keys} {
    set n 0
    for {set i 0} {$i < [llength $keys]} {incr i 500} {
        incr n [r $c EXISTS {*}[lrange $keys $i [expr {$i + 499}]]]
    }
    return $n
}

proc reset {c} {
    r $c CONFIG SET maxmemory 0
    r $c FLUSHALL
    r $c CONFIG SET maxmemory-policy noeviction maxmemory-samples 5 maxmemory-eviction-tenacity 10
}

foreach policy {allkeys-lru allkeys-lfu allkeys-random volatile-lru volatile-lfu volatile-random volatile-ttl} {
    test "$policy keeps used_memory within maxmemory under a write flood" {
        reset $c
        set limit [expr {[used $c] + 512 * 1024}]
        r $c CONFIG SET maxmemory-policy $policy maxmemory $limit
        set ttl [expr {[string match volatile-* $policy] ? 100000 : 0}]
        set val [string repeat x 200]
        set worst 0
        # ~6 MB of writes into a 512 KB budget
        for {set i 0} {$i < 20000} {incr i 500} {
            set cmds {}
            for {set j $i} {$j < $i + 500} {incr j} {
                if {$ttl} {
                    lappend cmds [list SET k:$j $val EX [expr {$ttl + $j}]]
                } else {
                    lappend cmds [list SET k:$j $val]
                }
            }
            foreach reply [pipe $c $cmds] { assert_equal "+OK\r\n" $reply }
            set over [expr {[used $c] - $limit}]
            if {$over > $worst} { set worst $over }
        }
        # Redis' own tests allow a few KB over: the command that ran last
        # and the client's buffers are counted after the check.
        puts "    $policy: used_memory at most $worst bytes over maxmemory"
        assert {$worst < 16 * 1024} "used_memory exceeded maxmemory by $worst bytes"
        assert {[evicted $c] > 10000}
        assert {[r $c DBSIZE] > 500}
        reset $c
    }
}

foreach policy {volatile-lru volatile-lfu volatile-random volatile-ttl} {
    test "$policy evicts only keys with a TTL, then answers -OOM" {
        reset $c
        set empty [used $c]
        fill $c p 2000 100
        set pused [used $c]
        set limit [expr {$pused + 256 * 1024}]
        r $c CONFIG SET maxmemory-policy $policy maxmemory $limit
        fill $c v 5000 200 100000
        assert {[evicted $c] > 1000}
        set pkeys {}
        for {set i 0} {$i < 2000} {incr i} { lappend pkeys p:$i }
        assert_equal 2000 [surviving $c $pkeys]
        # A budget below the persistent keys alone: every volatile key
        # goes, then nothing is left to give. Writes fail, reads and DEL work.
        r $c CONFIG SET maxmemory [expr {$empty + ($pused - $empty) / 2}]
        wait_for {[r $c DBSIZE] == 2000}
        assert_error "OOM command not allowed when used memory > 'maxmemory'." {r $c SET newkey x}
        assert_equal [string repeat v 100] [r $c GET p:1]
        assert_equal 2000 [surviving $c $pkeys]
        assert_equal 1 [r $c DEL p:1]
        reset $c
    }
}

# Hot keys read after the fill: the fraction of them still present after
# evicting ~40% of the keys, under one policy.
proc hot_survival {c policy} {
    reset $c
    r $c CONFIG SET maxmemory-policy $policy lfu-log-factor 0 lfu-decay-time 0
    fill $c k 5000 200
    set hot {}
    for {set i 0} {$i < 5000} {incr i 5} { lappend hot k:$i }
    # The LRU clock ticks once a second: the reads must land on a later
    # tick than the writes for idle times to tell the keys apart.
    after 1100
    foreach rep {1 2 3 4 5 6 7 8} {
        set cmds {}
        foreach k $hot { lappend cmds [list GET $k] }
        pipe $c $cmds
    }
    set data [expr {[used $c] - [dict get $::base_used $c]}]
    r $c CONFIG SET maxmemory [expr {[used $c] - $data * 4 / 10}]
    wait_for {[fits $c]}
    set all {}
    for {set i 0} {$i < 5000} {incr i} { lappend all k:$i }
    set left [surviving $c $all]
    set kept [surviving $c $hot]
    reset $c
    r $c CONFIG SET lfu-log-factor 10 lfu-decay-time 1
    return [list [expr {double($kept) / [llength $hot]}] [expr {double($left) / 5000}]]
}

reset $c
dict set base_used $c [used $c]

test "allkeys-lru keeps recently read keys more often than allkeys-random" {
    lassign [hot_survival $c allkeys-random] rand_hot rand_all
    lassign [hot_survival $c allkeys-lru] lru_hot lru_all
    set ratio [expr {$lru_hot / max($rand_hot, 0.001)}]
    puts "    hot keys kept: lru [format %.3f $lru_hot] random [format %.3f $rand_hot] (all keys: lru [format %.3f $lru_all] random [format %.3f $rand_all]), ratio [format %.2f $ratio]"
    assert {$ratio > 1.3} "lru/random survival ratio $ratio"
    assert {$lru_hot > 0.9} "lru kept only $lru_hot of the hot keys"
}

test "allkeys-lfu keeps frequently used keys" {
    lassign [hot_survival $c allkeys-lfu] lfu_hot lfu_all
    assert {$lfu_hot > 0.9} "lfu kept only $lfu_hot of the hot keys"
    assert {$lfu_all < 0.75}
}

test "volatile-ttl evicts the nearest expiries first" {
    reset $c
    set val [string repeat v 200]
    set cmds {}
    for {set i 0} {$i < 4000} {incr i} {
        if {$i % 2} {
            lappend cmds [list SET long:$i $val EX 1000000]
        } else {
            lappend cmds [list SET short:$i $val EX 10000]
        }
    }
    pipe $c $cmds
    set data [expr {[used $c] - [dict get $base_used $c]}]
    r $c CONFIG SET maxmemory-policy volatile-ttl maxmemory [expr {[used $c] - $data * 4 / 10}]
    wait_for {[fits $c]}
    set short {}
    set long {}
    for {set i 0} {$i < 4000} {incr i} {
        if {$i % 2} { lappend long long:$i } else { lappend short short:$i }
    }
    set s [surviving $c $short]
    set l [surviving $c $long]
    assert {$l > 1700 && $s < 1000} "long-TTL kept $l of 2000, short-TTL $s of 2000"
    reset $c
}

test "noeviction: -OOM for denyoom commands and inside MULTI, reads and DEL still work" {
    reset $c
    r $c CONFIG RESETSTAT
    fill $c n 1000 100
    r $c CONFIG SET maxmemory [expr {[used $c] - 50 * 1024}]
    assert_equal "-OOM command not allowed when used memory > 'maxmemory'.\r\n" [rraw $c SET n:new x]
    assert_error "OOM *" {r $c APPEND n:1 x}
    assert_error "OOM *" {r $c LPUSH l a}
    assert_equal [string repeat v 100] [r $c GET n:1]
    assert_equal OK [r $c MULTI]
    assert_error "OOM *" {r $c GET n:1}
    assert_error "EXECABORT *" {r $c EXEC}
    assert_equal 1 [r $c DEL n:2]
    assert_equal 0 [evicted $c]
    assert_match "*errorstat_OOM:count=4*" [r $c INFO errorstats]
    # Time spent over the limit with nothing to evict is measured.
    after 200
    catch {r $c SET n:new x}
    set st [server_info $c stats]
    assert {[dict get $st current_eviction_exceeded_time] >= 150}
    assert {[dict get $st total_eviction_exceeded_time] >= [dict get $st current_eviction_exceeded_time]}
    r $c CONFIG RESETSTAT
    set st [server_info $c stats]
    assert_equal {0 0} [list [dict get $st current_eviction_exceeded_time] [dict get $st total_eviction_exceeded_time]]
    reset $c
}

test "evicted keys fire the evicted notification" {
    reset $c
    r $c CONFIG SET notify-keyspace-events Ee
    set s [client $srv]
    r $s SUBSCRIBE __keyevent@0__:evicted
    fill $c e 2000 100
    set before [evicted $c]
    r $c CONFIG SET maxmemory-policy allkeys-random maxmemory [expr {[used $c] - 60 * 1024}]
    r $c PING
    set n [expr {[evicted $c] - $before}]
    assert {$n > 0}
    set names {}
    for {set i 0} {$i < $n} {incr i} {
        set m [read_reply $s]
        assert_equal {message __keyevent@0__:evicted} [lrange $m 0 1]
        lappend names [lindex $m 2]
    }
    foreach k $names { assert_equal 0 [r $c EXISTS $k] }
    close_client $s
    r $c CONFIG SET notify-keyspace-events ""
    reset $c
}

test "evictions reach a replica as DELs; the replica evicts nothing itself" {
    set rsrv [start_server]
    set rc [client $rsrv]
    reset $c
    # The backlog's share of the stream counts against maxmemory (as in
    # Redis): keep it small so the budget below is the dataset's.
    r $c CONFIG SET repl-backlog-size 16kb repl-diskless-sync-delay 0
    fill $c r 3000 100
    repl_attach $rc $srv
    repl_wait_caught_up $c $rc
    # The replica's own budget is far below its data: ignored by default.
    r $rc CONFIG SET maxmemory 1mb maxmemory-policy allkeys-lru
    set limit [expr {[used $c] + 128 * 1024}]
    r $c CONFIG SET maxmemory-policy allkeys-lru maxmemory $limit
    fill $c s 3000 100
    assert {[evicted $c] > 1000}
    # (no budget: nothing is evicted behind the comparison's back)
    r $c CONFIG SET maxmemory 0
    repl_wait_caught_up $c $rc
    assert_equal [r $c DBSIZE] [r $rc DBSIZE]
    assert_equal [r $c DEBUG DIGEST] [r $rc DEBUG DIGEST]
    assert_equal 0 [evicted $rc]
    assert {[used $rc] > 1024 * 1024}
    stop_server $rsrv
    reset $c
}

test "lazyfree-lazy-eviction frees evicted values in the background" {
    reset $c
    set before [info_field $c lazyfreed_objects memory]
    set members {}
    for {set j 0} {$j < 200} {incr j} { lappend members m$j }
    for {set i 0} {$i < 100} {incr i} { r $c SADD big:$i {*}$members }
    r $c CONFIG SET lazyfree-lazy-eviction yes maxmemory-policy allkeys-lru
    set ev [evicted $c]
    r $c CONFIG SET maxmemory [expr {[used $c] - 500 * 1024}]
    wait_for {[fits $c]}
    set n [expr {[evicted $c] - $ev}]
    assert {$n > 0}
    wait_for {[info_field $c lazyfreed_objects memory] - $before >= $n}
    # cairn counts a value's memory as it leaves, not once the thread gave
    # it back; redis-server 7.0 may evict everything here.
    if {[string match *cairn* [file tail $::cairn(server)]]} {
        assert {[r $c DBSIZE] > 20} "evicted $n of 100"
    }
    r $c CONFIG SET lazyfree-lazy-eviction no
    reset $c
}

test "maxmemory-eviction-tenacity 0: a big excess is still evicted, by the timer" {
    reset $c
    fill $c t 20000 100
    r $c CONFIG SET maxmemory-eviction-tenacity 0 maxmemory-policy allkeys-random
    set before [evicted $c]
    r $c CONFIG SET maxmemory [expr {[used $c] / 2}]
    wait_for {[fits $c]}
    assert {[evicted $c] - $before > 5000}
    assert [dict exists [server_info $c stats] total_eviction_exceeded_time]
    reset $c
}

test "INFO shows maxmemory, the policy and mem_not_counted_for_evict" {
    r $c CONFIG SET maxmemory 123456789 maxmemory-policy volatile-lfu
    set m [server_info $c memory]
    assert_equal 123456789 [dict get $m maxmemory]
    assert_equal 117.74M [dict get $m maxmemory_human]
    assert_equal volatile-lfu [dict get $m maxmemory_policy]
    assert [string is integer -strict [dict get $m mem_not_counted_for_evict]]
    reset $c
}

test "CONFIG SET maxmemory inside EXEC evicts after the transaction, not during it" {
    r $c FLUSHALL
    r $c CONFIG SET maxmemory-policy allkeys-lru
    r $c MULTI
    r $c INCR x
    r $c CONFIG SET maxmemory 1
    r $c INCR x
    assert_equal {1 OK 2} [r $c EXEC]
    wait_for {[r $c DBSIZE] == 0} 5000 "the key was not evicted"
    reset $c
}

test "The keyspace table does not double past maxmemory: no key is evicted for it" {
    # 65536 keys fill a 65536-bucket table; the next key would double it
    # (a 1 MB bucket array), well past a limit 200 KB above the current
    # use. As Redis, the table waits (it may load up to 1.618 per bucket)
    # rather than evict keys to make room for itself.
    r $c FLUSHALL
    r $c CONFIG SET maxmemory 0 maxmemory-policy allkeys-random
    r $c DEBUG POPULATE 65536 "" 1
    set used [info_field $c used_memory memory]
    r $c CONFIG RESETSTAT
    r $c CONFIG SET maxmemory [expr {$used + 200000}]
    for {set j 0} {$j < 10} {incr j} { r $c SET extra$j v }
    assert_equal 65546 [r $c DBSIZE]
    assert_equal 0 [info_field $c evicted_keys stats]
    reset $c
}

test "the server exits cleanly (no sanitizer report)" {
    close_client $c
    stop_server $srv
    assert_equal "" [sanitizer_report $srv]
}

finish
