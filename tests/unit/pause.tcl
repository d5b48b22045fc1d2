# pause.tcl -- CLIENT PAUSE beyond the plain client: a paused replica holds
# its primary's stream too (Redis 7.0 pauses every client but replicas, the
# primary's link included): the bytes arrive (slave_read_repl_offset moves)
# but are applied only when the pause ends (slave_repl_offset, the data);
# and which scripts and functions a WRITE pause holds, by their declared
# flags. Runs the same against redis-server.

source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

proc blocked {c} { return [info_field $c blocked_clients clients] }


set psrv [start_server -config {repl-ping-replica-period 3600}]
set rsrv [start_server]
set pc [client $psrv]
set rc [client $rsrv]
repl_attach $rc $psrv
r $pc SET base 1
repl_wait_caught_up $pc $rc

proc acked_offset {pc} {
    regexp {slave0:[^\r\n]*offset=(\d+)} [r $pc INFO replication] -> off
    return $off
}

test "CLIENT PAUSE WRITE on a replica holds the primary's stream until UNPAUSE" {
    r $pc SET k old
    repl_wait_caught_up $pc $rc
    set applied [info_field $rc slave_repl_offset replication]
    r $rc CLIENT PAUSE 100000 WRITE
    r $pc SET k new
    r $pc MULTI
    r $pc INCR n
    r $pc INCR n
    r $pc EXEC
    set target [info_field $pc master_repl_offset replication]
    # Received, but not applied.
    wait_for {[info_field $rc slave_read_repl_offset replication] == $target} 10000 "bytes reached the replica"
    after 200
    assert_equal $applied [info_field $rc slave_repl_offset replication] "offset moved during the pause"
    assert_equal 1 [blocked $rc] "the primary's link is held"
    assert_match "*flags=Mb *" [r $rc CLIENT LIST TYPE master]
    # Reads still run, and see the old data.
    assert_equal old [r $rc GET k]
    assert_equal {} [r $rc GET n]
    # The replica acknowledges what it applied, not what it read.
    after 1100
    assert_equal $applied [acked_offset $pc]
    r $rc CLIENT UNPAUSE
    repl_wait_caught_up $pc $rc
    assert_equal new [r $rc GET k]
    assert_equal 2 [r $rc GET n]
    assert_equal 0 [blocked $rc]
    assert_equal [r $pc DEBUG DIGEST] [r $rc DEBUG DIGEST]
    wait_for {[acked_offset $pc] == [info_field $pc master_repl_offset replication]} 5000 "acked after the pause"
}

# Under ALL nothing on the replica answers until the pause ends (in Redis
# not even CLIENT): watch it from the primary, through the offset the
# replica acknowledges each second.
test "CLIENT PAUSE ALL on a replica holds the primary's stream until it ends" {
    r $pc SET a old
    repl_wait_caught_up $pc $rc
    wait_for {[acked_offset $pc] == [info_field $pc master_repl_offset replication]} 5000 "acked before"
    set applied [acked_offset $pc]
    r $rc CLIENT PAUSE 2500 ALL
    r $pc SET a new
    r $pc MULTI
    r $pc INCR m
    r $pc EXEC
    after 1500
    assert_equal $applied [acked_offset $pc] "the replica applied during the pause"
    assert {[info_field $pc master_repl_offset replication] > $applied}
    repl_wait_caught_up $pc $rc
    assert_equal new [r $rc GET a]
    assert_equal 1 [r $rc GET m]
    assert_equal [r $pc DEBUG DIGEST] [r $rc DEBUG DIGEST]
}

test "A replica's pause that times out lets the stream through by itself" {
    r $rc CLIENT PAUSE 700 WRITE
    r $pc SET timed v
    after 200
    assert_equal {} [r $rc GET timed]
    wait_for {[r $rc GET timed] eq "v"} 5000 "the write applied after the pause ended"
    repl_wait_caught_up $pc $rc
}

test "The primary's PINGs and GETACKs during a replica's WRITE pause: still in order after it" {
    r $rc CLIENT PAUSE 100000 WRITE
    r $pc CONFIG SET repl-ping-replica-period 1
    r $pc SET p1 a
    after 1300
    r $pc SET p2 b
    r $rc CLIENT UNPAUSE
    r $pc CONFIG SET repl-ping-replica-period 3600
    repl_wait_caught_up $pc $rc
    assert_equal {a b} [list [r $rc GET p1] [r $rc GET p2]]
    assert_equal up [info_field $rc master_link_status replication]
}

close_client $rc
close_client $pc
stop_server $rsrv
stop_server $psrv

set srv [start_server]
set c [client $srv]
r $c FUNCTION LOAD {#!lua name=plib
    redis.register_function{function_name='ro', callback=function() return 'ro' end, flags={'no-writes'}}
    redis.register_function('rw', function() return 'rw' end)
}
set sha_rw [r $c SCRIPT LOAD {return 'rw'}]
set sha_ro [r $c SCRIPT LOAD "#!lua flags=no-writes\nreturn 'ro'"]

# Each call: does a WRITE pause hold it, and what does it answer after?
foreach {name call expected held} [list \
        "FCALL of a no-writes function" {FCALL ro 0} ro 0 \
        "FCALL of a writing function" {FCALL rw 0} rw 1 \
        "FCALL_RO of a writing function" {FCALL_RO rw 0} "*Can not execute a script with write flag using \\*_ro command*" 1 \
        "FCALL of an unknown function" {FCALL nosuch 0} "*Function not found*" 1 \
        "FCALL_RO of an unknown function" {FCALL_RO nosuch 0} "*Function not found*" 0 \
        "EVAL without a shebang" {EVAL {return 1} 0} 1 1 \
        "EVAL with no-writes" [list EVAL "#!lua flags=no-writes\nreturn 2" 0] 2 0 \
        "EVAL_RO without a shebang" {EVAL_RO {return 3} 0} 3 0 \
        "EVAL_RO of a shebang script without no-writes" [list EVAL_RO "#!lua\nreturn 4" 0] "*write flag*" 1 \
        "EVALSHA of a cached no-writes script" [list EVALSHA $sha_ro 0] ro 0 \
        "EVALSHA of a cached script without a shebang" [list EVALSHA $sha_rw 0] rw 1 \
        "EVALSHA of an unknown script" [list EVALSHA [string repeat 0 40] 0] "NOSCRIPT*" 1 \
        "EVALSHA_RO of an unknown script" [list EVALSHA_RO [string repeat 0 40] 0] "NOSCRIPT*" 0] {
    test "CLIENT PAUSE WRITE: $name is [expr {$held ? {held} : {not held}}]" {
        set x [client $srv]
        r $c CLIENT PAUSE 100000 WRITE
        send_cmd $x {*}$call
        if {$held} {
            wait_for {[blocked $c] == 1} 5000 "the call is held"
            after 100
            assert_equal 1 [blocked $c]
            r $c CLIENT UNPAUSE
        } else {
            set_timeout $x 3000
        }
        catch {read_reply $x} reply
        if {!$held} { r $c CLIENT UNPAUSE }
        assert_match $expected $reply
        assert_equal 0 [blocked $c]
        close_client $x
    }
}

finish
