# repl_primary_restart.tcl -- a primary restarted from its own snapshot.
#
# SHUTDOWN (or SIGTERM) saves the repl-id and repl-offset aux fields; at
# start-up the primary takes a new ID, keeps the saved one as its second ID
# and opens its backlog at the saved offset, so its replicas (this server
# and, when installed, Debian's redis-server) continue with +CONTINUE.
# Keys that expired while it was down are dropped by the load and their
# DELs put in the stream after the saved offset: the replicas, which never
# expire keys themselves, delete them through the partial resync. When
# those DELs overflow the backlog the replicas' offset is gone from it and
# they resync fully instead; the datasets end equal either way.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }

# No PINGs and no timeouts: each replica reconnects once per restart, so
# the sync counters count exactly the restarts' resyncs.
set quiet {repl-timeout 3600}
set p [start_server -config [concat {save {3600 1} repl-ping-replica-period 3600 repl-diskless-sync-delay 0} $quiet]]
set replicas [list [start_server -config $quiet]]
if {$ref ne ""} { lappend replicas [start_server -binary $ref -config $quiet] }
set nrep [llength $replicas]
set pc [client $p]
foreach s $replicas {
    set c [client $s]
    repl_attach $c $p
    lappend rcs $c
}
repl_wait_online $pc $nrep

proc wait_all_caught_up {} {
    foreach c $::rcs { repl_wait_caught_up $::pc $c }
}

proc assert_all_same {} {
    set d [r $::pc DEBUG DIGEST]
    foreach c $::rcs { assert_equal $d [r $c DEBUG DIGEST] "replica DEBUG DIGEST" }
}

# Restart the primary (SIGTERM: it saves), optionally with extra settings,
# and wait until every replica streams from it again.
proc restart_primary {{extra {}}} {
    if {$extra ne ""} { dict set ::p config [concat [dict get $::p config] $extra] }
    set ::p [restart_server $::p]
    set ::pc [client $::p]
    foreach c $::rcs { repl_wait_link $c }
    repl_wait_online $::pc $::nrep
}

proc repl_field {c f} { return [info_field $c $f replication] }

# n keys prefix:0.. with a 100 ms TTL spread over ndbs databases, on the
# replicas too, then expired (the primary's active expiry off, so they are
# still in its dataset when it saves).
proc expired_keys {prefix n ndbs} {
    r $::pc DEBUG SET-ACTIVE-EXPIRE 0
    for {set i 0} {$i < $n} {incr i} {
        r $::pc SELECT [expr {$i % $ndbs}]
        r $::pc SET $prefix:$i x PX 100
    }
    r $::pc SELECT 0
    wait_all_caught_up
    after 200
}

test "A primary restarted from its snapshot keeps its history: every replica continues partially" {
    for {set i 0} {$i < 500} {incr i} {
        r $pc SET k:$i [string repeat v [expr {$i % 40}]]
        r $pc RPUSH list $i
    }
    r $pc SELECT 7
    r $pc HSET h f v
    r $pc SELECT 0
    wait_all_caught_up
    set replid [repl_field $pc master_replid]
    set offset [repl_field $pc master_repl_offset]
    restart_primary
    assert {[repl_field $pc master_replid] ne $replid}
    assert_equal $replid [repl_field $pc master_replid2]
    assert_equal [expr {$offset + 1}] [repl_field $pc second_repl_offset]
    assert_equal $offset [repl_field $pc master_repl_offset]
    assert_equal [expr {$offset + 1}] [repl_field $pc repl_backlog_first_byte_offset]
    assert_equal $nrep [repl_stat $pc sync_partial_ok]
    assert_equal 0 [repl_stat $pc sync_full]
    # the stream goes on from there, in the database the client selects
    r $pc SELECT 7
    r $pc HSET h g w
    r $pc SELECT 0
    r $pc INCR after
    wait_all_caught_up
    foreach c $rcs {
        assert_equal 1 [r $c GET after]
        r $c SELECT 7
        assert_equal w [r $c HGET h g]
        r $c SELECT 0
    }
    assert_all_same
}

test "Keys that expired while it was down reach the replicas as DELs through the partial resync" {
    expired_keys gone 300 4
    set before [r $pc DBSIZE]
    set offset [repl_field $pc master_repl_offset]
    restart_primary
    assert_equal 300 [info_field $pc rdb_last_load_keys_expired]
    # the DELs follow the saved offset
    set grown [expr {[repl_field $pc master_repl_offset] - $offset}]
    assert {$grown > 300 * 20}
    assert_equal $grown [repl_field $pc repl_backlog_histlen]
    assert_equal $nrep [repl_stat $pc sync_partial_ok]
    assert_equal 0 [repl_stat $pc sync_full]
    wait_all_caught_up
    foreach c $rcs {
        # DBSIZE counts what a replica holds, logically expired or not
        assert_equal [expr {$before - 75}] [r $c DBSIZE]
        for {set db 0} {$db < 4} {incr db} {
            r $c SELECT $db
            assert_equal 0 [r $c EXISTS gone:$db gone:[expr {$db + 4}]]
        }
        r $c SELECT 0
    }
    assert_all_same
}

test "When the DELs overflow the backlog, the replicas' offset is gone from it: they resync fully" {
    r $pc SET kept 1
    expired_keys lost 2000 16
    restart_primary {repl-backlog-size 16384}
    assert_equal 2000 [info_field $pc rdb_last_load_keys_expired]
    assert {[repl_field $pc repl_backlog_first_byte_offset] > [repl_field $pc second_repl_offset]}
    assert_equal 0 [repl_stat $pc sync_partial_ok]
    assert_equal $nrep [repl_stat $pc sync_full]
    wait_all_caught_up
    foreach c $rcs {
        assert_equal 1 [r $c GET kept]
        r $c SELECT 3
        assert_equal 0 [r $c EXISTS lost:3]
        r $c SELECT 0
    }
    assert_all_same
}

test "CONFIG RESETSTAT zeroes sync_full, sync_partial_ok and sync_partial_err" {
    r $pc CONFIG RESETSTAT
    foreach f {sync_full sync_partial_ok sync_partial_err} { assert_equal 0 [repl_stat $pc $f] }
}

stop_server $p
foreach s $replicas { kill_server $s }
finish
