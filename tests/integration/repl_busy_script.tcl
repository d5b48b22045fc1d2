# repl_busy_script.tcl -- a replica running a script past busy-reply-threshold
# while its primary keeps writing: other clients get -BUSY, but the
# primary's stream is kept in the link's buffer (not answered -BUSY and
# lost) and applied once the script ends, on the same link (no resync).
# Passes against redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

test "A busy script on the replica delays the primary's stream, loses nothing" {
    set m [start_server -config {repl-diskless-sync-delay 0}]
    set r [start_server -config {repl-diskless-sync-delay 0 busy-reply-threshold 100}]
    set mc [client $m]
    set rc [client $r]
    set busy [client $r]
    set_timeout $busy 20000
    repl_attach $rc $m
    r $mc SET before 1
    repl_wait_caught_up $mc $rc
    set full [repl_stat $mc sync_full]
    set partial [repl_stat $mc sync_partial_ok]
    # About 2 s of Lua (TIME is allowed in a script that does not write).
    send_cmd $busy EVAL {
        local t = redis.call('TIME')
        local start = t[1] * 1000000 + t[2]
        repeat
            t = redis.call('TIME')
        until t[1] * 1000000 + t[2] - start > 2000000
        return 'done'
    } 0
    wait_for {[catch {r $rc PING} e] && [string match "BUSY*" $e]} 5000 "replica busy"
    for {set i 0} {$i < 300} {incr i} {
        r $mc SET k:$i $i
        r $mc RPUSH list $i
    }
    r $mc INCR counter
    # Still inside the script: the writes wait.
    assert {[catch {r $rc PING} e] && [string match "BUSY*" $e]} "replica no longer busy: $e"
    assert_equal done [read_reply $busy]
    repl_wait_caught_up $mc $rc
    assert_equal 300 [r $rc LLEN list]
    assert_equal 1 [r $rc GET counter]
    assert_equal [r $mc DEBUG DIGEST] [r $rc DEBUG DIGEST]
    assert_equal $full [repl_stat $mc sync_full] "a full resync happened"
    assert_equal $partial [repl_stat $mc sync_partial_ok] "the link was dropped"
    assert_equal up [info_field $rc master_link_status replication]
    stop_server $r
    stop_server $m
}

finish
