# repl_faults.tcl -- faults on the replication link, injected by
# tests/helpers/faultproxy.tcl sitting between primary and replica: the
# link delayed, stalled and cut in the middle of the snapshot and of the
# stream. After each fault the replica reconnects by itself, resyncs
# (partially when the backlog covers the gap), and ends with the primary's
# dataset (DEBUG DIGEST); sync_full on the primary stays bounded, so no
# fault turns into a resync loop. The many-rounds variant is tagged slow.
# runner-timeout: 1200
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

# PINGs every second keep an idle link inside the replica's short repl-timeout
set m [start_server -config {repl-diskless-sync-delay 0 repl-backlog-size 10mb repl-ping-replica-period 1}]
set s [start_server -config {repl-timeout 3}]
set mc [client $m]
set sc [client $s]
set px [faultproxy_start $m]

rdbdata_populate $mc
for {set i 0} {$i < 3000} {incr i} { r $mc SET bulk:$i [string repeat v 200] }

proc load {n prefix} {
    for {set i 0} {$i < $n} {incr i} {
        r $::mc SET $prefix:$i $i
        r $::mc RPUSH $prefix:list $i
    }
}

proc converged {} {
    repl_wait_link $::sc 30000
    repl_wait_caught_up $::mc $::sc 30000
    repl_same_data $::mc $::sc
}

proc snapshot_slow {on} {
    # each key costs the snapshot child 200 us: the payload takes ~1 s
    r $::mc CONFIG SET rdb-key-save-delay [expr {$on ? 200 : 0}]
}

foreach mode {diskless disk} {
    test "A link cut mid-snapshot ($mode): the replica starts over once and converges" {
        r $mc CONFIG SET repl-diskless-sync [expr {$mode eq "diskless" ? "yes" : "no"}]
        r $sc REPLICAOF NO ONE
        set full [repl_stat $mc sync_full]
        set conns [lindex [faultproxy $px stats] 4]
        snapshot_slow 1
        faultproxy $px cut_after 20000
        r $sc REPLICAOF 127.0.0.1 [faultproxy_port $px]
        # the cut, then the replica's next connection
        wait_for {[lindex [faultproxy $px stats] 4] >= $conns + 2} 20000 "a reconnection after the cut"
        snapshot_slow 0
        load 200 cut-snap-$mode
        converged
        # the cut attempt and the one that succeeded, not more
        set n [expr {[repl_stat $mc sync_full] - $full}]
        assert {$n >= 2 && $n <= 3} "full syncs after a cut mid-snapshot: $n"
    }
}

test "A link cut mid-stream resumes with a partial resync" {
    converged
    set full [repl_stat $mc sync_full]
    set ok [repl_stat $mc sync_partial_ok]
    faultproxy $px cut_after 3000
    load 500 cut-stream
    converged
    assert_equal $full [repl_stat $mc sync_full]
    assert {[repl_stat $mc sync_partial_ok] > $ok} "no partial resync after the cut"
}

# Run fault (in the caller), then check the link survived it: the replica
# converged with neither a full nor a partial resync.
proc survives_without_resync {fault} {
    set full [repl_stat $::mc sync_full]
    set ok [repl_stat $::mc sync_partial_ok]
    uplevel 1 $fault
    converged
    assert_equal $full [repl_stat $::mc sync_full]
    assert_equal $ok [repl_stat $::mc sync_partial_ok]
}

test "A delayed link still converges without a resync" {
    survives_without_resync {
        faultproxy $px delay 30
        load 300 delayed
    }
    faultproxy $px delay 0
}

test "A short stall (under repl-timeout) passes without a resync" {
    survives_without_resync {
        faultproxy $px stall
        load 300 short-stall
        after 1000
        faultproxy $px resume
    }
}

test "A stall past repl-timeout: the replica gives up on the link and resyncs partially" {
    set full [repl_stat $mc sync_full]
    set ok [repl_stat $mc sync_partial_ok]
    faultproxy $px stall
    load 300 long-stall
    # repl-timeout is 3 s on the replica
    wait_for {[info_field $sc master_link_status replication] ne "up"} 20000 "the replica dropping the link"
    faultproxy $px resume
    converged
    assert_equal $full [repl_stat $mc sync_full]
    assert {[repl_stat $mc sync_partial_ok] > $ok} "no partial resync after the stall"
}

test "A stall mid-snapshot past repl-timeout: a new full sync, then convergence" {
    r $sc REPLICAOF NO ONE
    set full [repl_stat $mc sync_full]
    snapshot_slow 1
    r $sc REPLICAOF 127.0.0.1 [faultproxy_port $px]
    wait_for {[info_field $sc master_sync_in_progress replication] == 1} 10000 "the snapshot transfer"
    faultproxy $px stall
    after 4000
    faultproxy $px resume
    snapshot_slow 0
    converged
    set n [expr {[repl_stat $mc sync_full] - $full}]
    assert {$n >= 1 && $n <= 3} "full syncs after a stall mid-snapshot: $n"
}

test "Many random cuts under a write load: the replica converges, never loops" -tags {slow} {
    set full [repl_stat $mc sync_full]
    expr {srand(12345)}
    for {set round 0} {$round < 30} {incr round} {
        if {$round % 5 == 0} {
            # a cut in the snapshot: start over from nothing
            r $sc REPLICAOF NO ONE
            snapshot_slow 1
            faultproxy $px cut_after [expr {int(rand() * 400000)}]
            r $sc REPLICAOF 127.0.0.1 [faultproxy_port $px]
            after [expr {int(rand() * 1500)}]
            snapshot_slow 0
        } else {
            faultproxy $px cut_after [expr {int(rand() * 20000)}]
        }
        faultproxy $px delay [expr {int(rand() * 3) * 5}]
        load [expr {100 + int(rand() * 300)}] round$round
        faultproxy $px delay 0
        converged
    }
    # six forced restarts from nothing plus, at most, one cut each
    set n [expr {[repl_stat $mc sync_full] - $full}]
    assert {$n <= 12} "full syncs over 30 rounds: $n"
}

faultproxy_stop $px
finish
