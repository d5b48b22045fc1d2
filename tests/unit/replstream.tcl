# replstream.tcl -- what a primary sends down a raw SYNC connection after
# the snapshot: the stream as replicas (and tools reading it, such as the
# MONITOR-like readers of redis-cli --replica) see it.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server -config {repl-diskless-sync-delay 0}]
set c [client $srv]

# A SYNC reader: the snapshot is skipped, the client is left at the stream.
proc stream_attach {srv} {
    set s [client $srv]
    send_raw $s "SYNC\r\n"
    while {1} {
        set line [string trimright [gets $s] \r]
        if {$line ne ""} break ;# newlines are keep-alives
    }
    assert_match {$*} $line
    set n [string range $line 1 end]
    while {$n > 0} {
        set got [read $s $n]
        if {$got eq "" && [eof $s]} { error "stream closed during the snapshot" }
        incr n -[string length $got]
    }
    return $s
}

test "a replica that attaches is not sent a PING at once" {
    r $c CONFIG SET repl-ping-replica-period 3600
    # the server has been up with no replica for longer than a cron tick
    after 1100
    set s [stream_attach $srv]
    after 1100 ;# a cron tick with the replica attached
    r $c SET k v
    set_timeout $s 3000
    assert_equal {SELECT 0} [read_reply $s]
    assert_equal {SET k v} [read_reply $s]
    close_client $s
    r $c CONFIG SET repl-ping-replica-period 10
}

test "EXEC with one write propagates it bare, with two as MULTI ... EXEC" {
    r $c CONFIG SET repl-ping-replica-period 3600
    set s [stream_attach $srv]
    set_timeout $s 3000
    r $c MULTI
    r $c SET one 1
    r $c GET one
    r $c EXEC
    r $c MULTI
    r $c SET two 2
    r $c SET three 3
    r $c EXEC
    assert_equal {SELECT 0} [read_reply $s]
    assert_equal {SET one 1} [read_reply $s]
    assert_equal {MULTI} [read_reply $s]
    assert_equal {SET two 2} [read_reply $s]
    assert_equal {SET three 3} [read_reply $s]
    assert_equal {EXEC} [read_reply $s]
    close_client $s
    r $c CONFIG SET repl-ping-replica-period 10
}

stop_server $srv
finish
