# repl_shutdown_wait.tcl -- shutdown-timeout: a primary asked to stop (by
# SHUTDOWN or SIGTERM) while a replica has not acknowledged everything
# pauses writes and waits for it, up to shutdown-timeout seconds, so the
# replica ends with every write; SHUTDOWN ABORT cancels the wait (the
# waiting SHUTDOWN gets an error). Also INFO's connected_clients, which
# does not count replicas. Passes against redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

proc pair {args} {
    set m [start_server -config [list repl-diskless-sync-delay 0 {*}$args]]
    set r [start_server -config {repl-diskless-sync-delay 0}]
    set rc [client $r]
    repl_attach $rc $m
    set mc [client $m]
    repl_wait_online $mc 1
    return [list $m $r $rc $mc]
}
proc sig {srv s} { ::cairn_h::signal [dict get $srv pid] $s }

test "connected_clients does not count replicas" {
    lassign [pair] m r rc mc
    assert_equal 1 [info_field $mc connected_clients clients]
    stop_server $r
    stop_server $m
}

foreach how {shutdown sigterm} {
    test "A primary's $how waits for a stopped replica, which then has every write" {
        lassign [pair shutdown-timeout 60] m r rc mc
        r $mc SET k 1
        repl_wait_caught_up $mc $rc
        sig $r STOP
        r $mc INCR k
        if {$how eq "shutdown"} {
            set sc [client $m]
            send_cmd $sc SHUTDOWN
        } else {
            sig $m TERM
        }
        wait_for {[info_field $mc shutdown_in_milliseconds server] ne ""} 5000 "shutdown pending"
        assert {[info_field $mc shutdown_in_milliseconds server] > 50000}
        assert_equal 1 [::cairn_h::pid_alive [dict get $m pid]]
        sig $r CONT
        assert [::cairn_h::wait_exit [dict get $m pid] 10000] "the primary did not exit"
        assert_equal 2 [r $rc GET k]
        assert_match "*1 of 1 replicas are in sync*" [log_tail $m 20]
        ::cairn_h::forget [dict get $m pid]
        stop_server $r
    }
}

test "shutdown-timeout passes: the primary exits, logging the lagging replica" {
    lassign [pair shutdown-timeout 1] m r rc mc
    sig $r STOP
    r $mc INCR k
    sig $m TERM
    assert [::cairn_h::wait_exit [dict get $m pid] 8000] "the primary did not exit"
    set log [log_tail $m 20]
    assert_match "*Lagging replica*" $log
    assert_match "*0 of 1 replicas are in sync*" $log
    ::cairn_h::forget [dict get $m pid]
    sig $r CONT
    stop_server $r
}

test "SHUTDOWN ABORT ends the wait: the SHUTDOWN gets an error, writes resume" {
    lassign [pair shutdown-timeout 60] m r rc mc
    sig $r STOP
    r $mc INCR k
    set sc [client $m]
    set_timeout $sc 10000
    send_cmd $sc SHUTDOWN
    wait_for {[info_field $mc blocked_clients clients] == 1} 5000 "SHUTDOWN blocked"
    assert_equal OK [r $mc SHUTDOWN ABORT]
    assert_error "*Errors trying to SHUTDOWN*" {read_reply $sc}
    assert_equal 2 [r $mc INCR k]
    assert_equal "" [info_field $mc shutdown_in_milliseconds server]
    sig $r CONT
    repl_wait_caught_up $mc $rc
    assert_equal 2 [r $rc GET k]
    stop_server $r
    stop_server $m
}

finish
