# repl_load.tcl -- how a replica loads a full sync's payload, and what it
# reports meanwhile: with the default repl-diskless-load (disabled) and an
# empty dataset, cairn parses the payload as it arrives and writes it to
# dump.rdb at the same time (the load overlaps the transfer); with data it
# keeps serving the old dataset until the payload is complete. swapdb
# reports loading:1 while it loads a different history, and async_loading:1
# (the old dataset still served) while it loads its own primary's history
# again, as Redis 7.0 does. Also INFO's replication-buffer fields. The
# other tests pass against redis-server 7.0 too; the two that load while
# the payload arrives are cairn's own.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]

set is_cairn [string match *cairn* [file tail $::cairn(server)]]

proc loading_state {c} {
    return [list [info_field $c loading persistence] [info_field $c async_loading persistence]]
}

# A diskless primary with n keys whose snapshot takes about n*delay us.
proc slow_primary {n delay} {
    set m [start_server -config [list repl-diskless-sync yes repl-diskless-sync-delay 0 save ""]]
    set mc [client $m]
    r $mc DEBUG POPULATE $n key 100
    r $mc CONFIG SET rdb-key-save-delay $delay
    return [list $m $mc]
}

test "default repl-diskless-load, empty dataset: loaded as it arrives, and dump.rdb is the payload" {
    if {!$::is_cairn} { skip_test "redis-server loads only once the payload is complete" }
    lassign [slow_primary 20000 100] m mc
    set digest [r $mc DEBUG DIGEST]
    set s [start_server -config {save ""}]
    set rc [client $s]
    r $rc REPLICAOF 127.0.0.1 [dict get $m port]
    wait_for {[lindex [loading_state $rc] 0] eq "1"} 10000 "replica loading"
    assert_equal 0 [lindex [loading_state $rc] 1] "async_loading"
    assert_equal 1 [info_field $rc master_sync_in_progress replication]
    assert_error "LOADING*" {r $rc GET key:1}
    if {$::is_cairn} {
        # the primary's child is still writing the snapshot: the replica
        # loads what it has received so far
        assert_equal 1 [info_field $mc rdb_bgsave_in_progress persistence] "primary still snapshotting"
    }
    r $mc CONFIG SET rdb-key-save-delay 0
    repl_wait_link $rc
    r $mc SET after sync
    repl_wait_caught_up $mc $rc
    repl_same_data $mc $rc
    assert_equal 0 [info_field $rc loading persistence]
    # the file left behind is the primary's dataset at the sync
    r $rc REPLICAOF NO ONE
    kill_server $s
    set s [restart_server $s]
    set rc [client $s]
    assert_equal 20000 [r $rc DBSIZE]
    assert_equal $digest [r $rc DEBUG DIGEST]
    foreach x [list $m $s] { kill_server $x }
}

test "default repl-diskless-load with data: the old dataset is served until the payload is complete" {
    lassign [slow_primary 5000 400] m mc
    set s [start_server -config {save ""}]
    set rc [client $s]
    r $rc SET old yes
    r $rc REPLICAOF 127.0.0.1 [dict get $m port]
    wait_for {[info_field $rc master_sync_in_progress replication] eq "1"} 10000 "sync started"
    after 300
    assert_equal {0 0} [loading_state $rc]
    assert_equal yes [r $rc GET old]
    r $mc CONFIG SET rdb-key-save-delay 0
    repl_wait_link $rc
    repl_wait_caught_up $mc $rc
    repl_same_data $mc $rc
    assert_equal "" [r $rc GET old]
    foreach x [list $m $s] { kill_server $x }
}

test "a link cut during the empty-dataset load: the replica empties, syncs again and converges" {
    if {!$::is_cairn} { skip_test "redis-server loads only once the payload is complete" }
    lassign [slow_primary 20000 100] m mc
    set s [start_server -config {save ""}]
    set rc [client $s]
    r $rc REPLICAOF 127.0.0.1 [dict get $m port]
    wait_for {[info_field $rc loading persistence] eq "1"} 10000 "replica loading"
    r $mc CLIENT KILL TYPE replica
    wait_for {[info_field $rc loading persistence] eq "0"} 10000 "load abandoned"
    r $mc CONFIG SET rdb-key-save-delay 0
    repl_wait_link $rc
    repl_wait_caught_up $mc $rc
    repl_same_data $mc $rc
    assert {[repl_stat $mc sync_full] >= 2}
    foreach x [list $m $s] { kill_server $x }
}

# The replica serves clients every ~1 KB of payload and takes 0.5 ms a key,
# so its load of 3000 keys lasts seconds and INFO answers meanwhile.
proc slow_swapdb_replica {} {
    set s [start_server -config {repl-diskless-load swapdb save "" replica-read-only no}]
    set rc [client $s]
    r $rc CONFIG SET loading-process-events-interval-bytes 1024
    return [list $s $rc]
}

test "swapdb, another primary's history: loading:1, async_loading:0, -LOADING" {
    set m [start_server -config {repl-diskless-sync yes repl-diskless-sync-delay 0 save ""}]
    set mc [client $m]
    r $mc DEBUG POPULATE 3000 key 100
    lassign [slow_swapdb_replica] s rc
    r $rc SET mine 1
    r $rc CONFIG SET key-load-delay 500
    r $rc REPLICAOF 127.0.0.1 [dict get $m port]
    wait_for {[lindex [loading_state $rc] 0] eq "1"} 10000 "replica loading"
    assert_equal {1 0} [loading_state $rc]
    assert_error "LOADING*" {r $rc GET mine}
    r $rc CONFIG SET key-load-delay 0
    repl_wait_link $rc
    assert_equal {0 0} [loading_state $rc]
    repl_wait_caught_up $mc $rc
    repl_same_data $mc $rc
    foreach x [list $m $s] { kill_server $x }
}

test "swapdb, its own primary's history again: async_loading:1 and the old dataset is served" {
    set m [start_server -config {repl-diskless-sync yes repl-diskless-sync-delay 0 save ""}]
    set mc [client $m]
    r $mc DEBUG POPULATE 3000 key 100
    lassign [slow_swapdb_replica] s rc
    repl_attach $rc $m
    repl_wait_caught_up $mc $rc
    r $rc SET mykey myvalue
    r $rc FUNCTION LOAD "#!lua name=lib\nredis.register_function('f', function() return 'old' end)"
    r $mc FUNCTION LOAD "#!lua name=lib\nredis.register_function('f', function() return 'new' end)"
    set old_size [r $rc DBSIZE]
    r $rc CONFIG SET key-load-delay 500
    # The backlog no longer covers the replica's offset when it reconnects:
    # a full sync, under the replication ID it already has.
    r $mc MULTI
    r $mc CLIENT KILL TYPE replica
    r $mc CONFIG SET repl-backlog-size 16384
    for {set i 0} {$i < 10} {incr i} { r $mc SET big:$i [string repeat A 16384] }
    r $mc EXEC
    wait_for {[lindex [loading_state $rc] 1] eq "1"} 10000 "replica async loading"
    assert_equal {0 1} [loading_state $rc]
    assert_equal myvalue [r $rc GET mykey]
    assert_equal old [r $rc FCALL f 0]
    assert_equal $old_size [r $rc DBSIZE]
    assert_error "LOADING*" {r $rc REPLICAOF NO ONE}
    assert_equal {0 1} [loading_state $rc] "still loading after the checks"
    r $rc CONFIG SET key-load-delay 0
    repl_wait_link $rc
    assert_equal {0 0} [loading_state $rc]
    repl_wait_caught_up $mc $rc
    assert_equal "" [r $rc GET mykey]
    assert_equal new [r $rc FCALL f 0]
    repl_same_data $mc $rc
    foreach x [list $m $s] { kill_server $x }
}

test "INFO replication buffers: the backlog's share up to repl-backlog-size, the rest the replicas'" {
    set m [start_server -config {repl-backlog-size 1mb save ""}]
    set mc [client $m]
    set s [start_server -config {save ""}]
    set rc [client $s]
    repl_attach $rc $m
    r $mc SET k [string repeat x 100000]
    repl_wait_caught_up $mc $rc
    set total [info_field $mc mem_total_replication_buffers memory]
    assert {$total > 100000}
    assert_equal 0 [info_field $mc mem_clients_slaves memory]
    assert {[info_field $mc mem_replication_backlog memory] >= $total}
    # A stopped replica, and no cron to move it to disk: once the socket
    # buffers are full, it pins the rest of these 30 MB.
    r $mc DEBUG PAUSE-CRON 1
    ::cairn_h::signal [dict get $s pid] STOP
    set val [string repeat y 10000]
    for {set i 0} {$i < 3000} {incr i} { r $mc SET k:[expr {$i % 10}] $val }
    set total [info_field $mc mem_total_replication_buffers memory]
    assert {$total > 4000000}
    assert_equal [expr {$total - 1048576}] [info_field $mc mem_clients_slaves memory]
    ::cairn_h::signal [dict get $s pid] CONT
    r $mc DEBUG PAUSE-CRON 0
    repl_wait_caught_up $mc $rc 30000
    # What stays beyond repl-backlog-size is the block the backlog starts
    # in and the tail block, as in Redis.
    wait_for {[info_field $mc mem_clients_slaves memory] < 65536} 10000 "replica's share released"
    repl_same_data $mc $rc
    foreach x [list $m $s] { kill_server $x }
}

finish
