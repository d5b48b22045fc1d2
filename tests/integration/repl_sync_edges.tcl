# repl_sync_edges.tcl -- the primary's side of a full sync at its edges, as
# Redis 7.0 behaves: PSYNC with an offset that is no number is refused
# (not served with a full sync); a replica link that sends a command which
# replies is dropped before the reply can mix into the stream (a keyspace
# command is refused first); a snapshot
# child that no replica waits for any more is stopped (diskless always,
# disk-based unless save points make its file useful); a replica that
# stalls a diskless transfer past repl-timeout is dropped and the others'
# transfer goes on (also when it is killed instead); an output limit below the backlog size counts as the
# backlog size. Every test passes
# against redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

proc log_has {srv pattern} { return [string match $pattern [read_bytes [dict get $srv log]]] }

# Everything the peer sends until it closes (or ms pass: then "open").
proc read_until_closed {c ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    fconfigure $c -blocking 0 -translation binary
    set got ""
    while {1} {
        if {[catch {read $c} data]} { return [list closed $got] }
        append got $data
        if {$data eq "" && [eof $c]} { return [list closed $got] }
        if {$data ne ""} continue
        set left [expr {$deadline - [clock milliseconds]}]
        if {$left <= 0} { return [list open $got] }
        ::cairn_h::wait_readable $c $left
    }
}

test "PSYNC with an offset that is not a number: an error, logged, no sync" {
    set m [start_server]
    set mc [client $m]
    assert_error "ERR value is not an integer or out of range" {r $mc PSYNC someid offset_str}
    assert_equal PONG [r $mc PING]
    assert {[log_has $m "*asks for synchronization but with a wrong offset*"]}
    assert_equal 0 [repl_stat $mc sync_full]
    kill_server $m
}

test "a replica link whose command replies is dropped, the reply never sent" {
    # a disk-based sync that takes a while, so the link is still waiting
    set m [start_server -config {repl-diskless-sync no}]
    set mc [client $m]
    r $mc DEBUG POPULATE 20 key 10
    r $mc CONFIG SET rdb-key-save-delay 100000
    set rc [client $m]
    send_cmd $rc SYNC
    wait_for {[info_field $mc rdb_bgsave_in_progress persistence] eq "1"} 5000 "snapshot started"
    send_cmd $rc PING
    lassign [read_until_closed $rc 5000] state got
    assert_equal closed $state
    assert {[string first PONG $got] < 0} "no PONG on the link: [string range $got 0 60]"
    wait_for {[log_has $m "*Replica generated a reply to command 'ping', disconnecting it: *"]} 5000 "log line"
    assert_equal PONG [r $mc PING]
    r $mc CONFIG SET rdb-key-save-delay 0
    kill_server $m
}

test "a replica link that touches the keyspace is refused, and dropped for the reply" {
    set m [start_server -config {repl-diskless-sync yes repl-diskless-sync-delay 5}]
    set mc [client $m]
    set rc [client $m]
    send_cmd $rc PSYNC someid -1
    wait_for {[info_field $mc connected_slaves replication] eq "1"} 5000 "replica attached"
    send_cmd $rc GET foo
    lassign [read_until_closed $rc 5000] state got
    assert_equal closed $state
    assert {[string first "interact" $got] < 0} "no error on the link"
    wait_for {[log_has $m "*Replica generated a reply to command 'get', disconnecting it: *"]} 5000 "drop logged"
    assert {[log_has $m "*Replica can't interact with the keyspace*"]}
    assert_equal PONG [r $mc PING]
    kill_server $m
}

# A primary (with these directives) whose snapshot of nkeys takes
# nkeys*delay us, a replica that starts a sync with it and leaves while
# the child still writes. Returns {m mc s rc}.
proc sync_then_leave {conf nkeys delay} {
    set m [start_server -config $conf]
    set mc [client $m]
    r $mc DEBUG POPULATE $nkeys key 10
    r $mc CONFIG SET rdb-key-save-delay $delay
    set s [start_server]
    set rc [client $s]
    r $rc REPLICAOF 127.0.0.1 [dict get $m port]
    wait_for {[info_field $mc rdb_bgsave_in_progress persistence] eq "1" &&
              [info_field $rc master_sync_in_progress replication] eq "1"} 5000 "sync started"
    r $rc REPLICAOF NO ONE
    return [list $m $mc $s $rc]
}

foreach diskless {yes no} {
    test "repl-diskless-sync $diskless: the sync's child is stopped once no replica waits for it" {
        # about 10 s of snapshot, written steadily (Redis notices a gone
        # diskless replica when it next writes to it)
        lassign [sync_then_leave [list repl-diskless-sync $diskless repl-diskless-sync-delay 0 save ""] 20000 500] m mc s rc
        wait_for {[info_field $mc rdb_bgsave_in_progress persistence] eq "0"} 5000 "child stopped"
        wait_for {[glob -nocomplain -directory [dict get $m dir] temp-*.rdb] eq ""} 3000 "no temp file left"
        # the primary serves the next sync as usual
        r $mc CONFIG SET rdb-key-save-delay 0
        repl_attach $rc $m
        repl_wait_caught_up $mc $rc
        assert_equal 20000 [r $rc DBSIZE]
        foreach x [list $m $s] { kill_server $x }
    }
}

test "disk-based sync with save points: the child goes on without replicas (its file is a snapshot)" {
    lassign [sync_then_leave {repl-diskless-sync no save "3600 1"} 20 100000] m mc s rc
    after 500
    assert_equal 1 [info_field $mc rdb_bgsave_in_progress persistence]
    r $mc CONFIG SET rdb-key-save-delay 0
    foreach x [list $m $s] { kill_server $x }
}

# A diskless primary (extra directives) with a ~25 MB payload (more than a
# stopped replica's socket buffers) and two replicas waiting for it (the
# delay), the first stopped before the transfer starts. {m mc a ac b bc}
proc diskless_one_stopped {extra} {
    set m [start_server -config [list repl-diskless-sync yes repl-diskless-sync-delay 3 save "" rdbcompression no {*}$extra]]
    set mc [client $m]
    r $mc DEBUG POPULATE 2500 key 10000
    set a [start_server]
    set b [start_server]
    set ac [client $a]
    set bc [client $b]
    r $ac REPLICAOF 127.0.0.1 [dict get $m port]
    r $bc REPLICAOF 127.0.0.1 [dict get $m port]
    wait_for {[regexp -all {state=wait_bgsave} [r $mc INFO replication]] == 2} 10000 "both replicas waiting"
    ::cairn_h::signal [dict get $a pid] STOP
    return [list $m $mc $a $ac $b $bc]
}

test "a diskless transfer that a stopped replica stalls: dropped after repl-timeout, the other replica syncs" {
    lassign [diskless_one_stopped {repl-timeout 2}] m mc a ac b bc
    wait_for {[log_has $m "*Disconnecting timedout replica (full sync)*"]} 20000 "stalled replica dropped"
    repl_wait_link $bc 30000
    repl_wait_caught_up $mc $bc
    assert_equal [r $mc DEBUG DIGEST] [r $bc DEBUG DIGEST]
    ::cairn_h::signal [dict get $a pid] CONT
    repl_wait_link $ac 60000
    repl_wait_caught_up $mc $ac
    assert_equal [r $mc DEBUG DIGEST] [r $ac DEBUG DIGEST]
    foreach x [list $m $a $b] { kill_server $x }
}

test "a replica killed while it stalls a diskless transfer: the other replica's transfer goes on" {
    lassign [diskless_one_stopped {}] m mc a ac b bc
    # the transfer fills the stopped replica's buffers, then waits on it
    wait_for {[info_field $mc rdb_bgsave_in_progress persistence] eq "1"} 10000 "transfer started"
    after 1000
    kill_server $a
    repl_wait_link $bc 30000
    repl_wait_caught_up $mc $bc
    assert_equal [r $mc DEBUG DIGEST] [r $bc DEBUG DIGEST]
    wait_for {[info_field $mc rdb_bgsave_in_progress persistence] eq "0"} 10000 "child done"
    foreach x [list $m $b] { kill_server $x }
}

test "client-output-buffer-limit replica below repl-backlog-size: the backlog size is the hard limit" {
    set m [start_server -config {repl-backlog-size 64mb save ""}]
    set mc [client $m]
    r $mc CONFIG SET client-output-buffer-limit "replica 512kb 0 0"
    set s [start_server]
    set rc [client $s]
    repl_attach $rc $m
    repl_wait_caught_up $mc $rc
    ::cairn_h::signal [dict get $s pid] STOP
    # 30 MB the stopped replica has not read (more than its socket buffers
    # take): past 512kb, within the backlog
    set val [string repeat z 100000]
    for {set i 0} {$i < 300} {incr i} { r $mc SET k:[expr {$i % 10}] $val }
    after 1500
    assert_equal 1 [info_field $mc connected_slaves replication]
    ::cairn_h::signal [dict get $s pid] CONT
    repl_wait_caught_up $mc $rc
    assert_equal 1 [repl_stat $mc sync_full]
    assert_equal [r $mc DEBUG DIGEST] [r $rc DEBUG DIGEST]
    foreach x [list $m $s] { kill_server $x }
}

finish
